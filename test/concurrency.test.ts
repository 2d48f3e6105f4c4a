// Requests that arrive at once, through app.handle and the one writer (contract §14): whatever the
// interleaving, one match per order and per event, one order row per id, distinct unique amounts,
// one acknowledgement position. The single-request rules are tested elsewhere; these are the races.
import { afterAll, expect, test } from "bun:test";
import { makeTestApp } from "./support/harness";
import { bearer, matchCount, pay } from "./support/connector";

const t = await makeTestApp();
afterAll(() => t.close());

function shop() {
  const ten = t.tenant();
  const headers = bearer(ten.keys.test);
  return {
    scope: { tenantId: ten.tenant_id, environment: "test" as const },
    sync: (orders: unknown[]) => t.request("POST", "/connector/v1/orders", { headers, body: { orders } }),
    match: (body: unknown) => t.request("POST", "/connector/v1/matches", { headers, body }),
    testPayment: (amount: number, key: string) =>
      t.request("POST", "/connector/v1/test/payments", {
        headers: { ...headers, "idempotency-key": key },
        body: { kind: "payment.received", occurred_at: t.clock.now(), source: "yape", amount, currency: "PEN" },
      }),
    feed: () => t.request("GET", "/connector/v1/matches", { headers }),
    ack: (through: string) => t.request("POST", "/connector/v1/matches/ack", { headers, body: { through } }),
  };
}

test("twenty payments at once for one order: exactly one match, the others wait", async () => {
  const s = shop();
  expect((await s.sync([{ id: "ONE", amount: 2500, currency: "PEN" }])).status).toBe(200);
  const before = matchCount(t.store);
  const results = await Promise.all(Array.from({ length: 20 }, (_, i) => s.testPayment(2500, `race-${i}`)));
  expect(results.every((r) => r.status === 201)).toBe(true);
  const outcomes = results.map((r) => r.body.match.status);
  expect(outcomes.filter((o) => o === "matched")).toHaveLength(1);
  expect(outcomes.filter((o) => o !== "matched").every((o) => o === "unmatched")).toBe(true);
  expect(matchCount(t.store) - before).toBe(1);
  expect((await s.feed()).body.data).toHaveLength(1);
});

test("twenty syncs at once of different orders asking for a unique amount: twenty different expected amounts", async () => {
  const s = shop();
  const results = await Promise.all(
    Array.from({ length: 20 }, (_, i) => s.sync([{ id: `U-${i}`, amount: 1000, currency: "PEN", unique_amount: true }])),
  );
  expect(results.every((r) => r.status === 200)).toBe(true);
  const amounts = results.map((r) => r.body.orders[0].expected_amount);
  expect(new Set(amounts).size).toBe(20);
  expect([...amounts].sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, k) => 1000 + k));
});

test("twenty identical syncs at once: one order row, the same answer for all", async () => {
  const s = shop();
  const body = [{ id: "SAME-1", amount: 4200, currency: "PEN", unique_amount: true }];
  const results = await Promise.all(Array.from({ length: 20 }, () => s.sync(body)));
  expect(results.every((r) => r.status === 200)).toBe(true);
  expect(new Set(results.map((r) => JSON.stringify(r.body))).size).toBe(1);
  const rows = t.store.sqlite.query("SELECT id FROM orders WHERE tenant_id = ? AND id = 'SAME-1'").all(s.scope.tenantId);
  expect(rows).toHaveLength(1);
});

test("twenty manual matches at once of one payment to one order: one 201, every other 409 already_matched", async () => {
  const s = shop();
  expect((await s.sync([{ id: "M-1", amount: 2500, currency: "PEN" }, { id: "M-2", amount: 2500, currency: "PEN" }])).status).toBe(200);
  const p = await pay(t, s.scope, { amount: 2500 });
  expect(p.match.status).toBe("ambiguous");
  const results = await Promise.all(Array.from({ length: 20 }, () => s.match({ order_id: "M-1", event_id: p.eventId })));
  expect(results.filter((r) => r.status === 201)).toHaveLength(1);
  expect(results.filter((r) => r.status === 409).every((r) => r.body.code === "already_matched")).toBe(true);
  expect(results.filter((r) => r.status === 409)).toHaveLength(19);
});

test("acknowledgements at once, old and new cursors mixed: the position ends at the newest", async () => {
  const s = shop();
  await s.sync(Array.from({ length: 3 }, (_, i) => ({ id: `A-${i}`, amount: 3000 + i, currency: "PEN" })));
  for (let i = 0; i < 3; i++) expect((await s.testPayment(3000 + i, `ack-${i}`)).body.match.status).toBe("matched");
  const cursors: string[] = (await s.feed()).body.data.map((m: { cursor: string }) => m.cursor);
  expect(cursors).toHaveLength(3);
  const results = await Promise.all([...cursors, ...cursors].reverse().map((c) => s.ack(c)));
  expect(results.every((r) => r.status === 200)).toBe(true);
  expect((await s.feed()).body.data).toEqual([]);
  const last = (await s.ack(cursors[0]!)).body.acknowledged_through;
  expect(last).toBe(cursors[2]);
});
