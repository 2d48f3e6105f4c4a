// contract §12: POST /connector/v1/test/payments, and the whole integration with a test key and no
// phone: sync, pay, collect, acknowledge.
import { afterAll, describe, expect, test } from "bun:test";
import { makeTestApp } from "./support/harness";
import { bearer } from "./support/connector";

const t = await makeTestApp();
afterAll(() => t.close());

const payment = (extra: Record<string, unknown> = {}) => ({
  kind: "payment.received",
  occurred_at: t.clock.now() - 5000,
  source: "yape",
  amount: 2500,
  currency: "PEN",
  payer_name: "Yanina Man*",
  security_code: "482",
  ...extra,
});

test("the whole integration without a phone", async () => {
  const ten = t.tenant();
  const headers = bearer(ten.keys.test);
  const synced = await t.request("POST", "/connector/v1/orders", {
    headers,
    body: { orders: [{ id: "A-1042", amount: 2500, currency: "PEN", customer_name: "Yanina Manrique López" }, { id: "A-1043", amount: 2500, currency: "PEN", customer_name: "Luis Quispe" }] },
  });
  expect(synced.status).toBe(200);

  const paid = await t.request("POST", "/connector/v1/test/payments", { headers, body: payment() });
  expect(paid.status).toBe(201);
  expect(paid.body).toEqual({
    event_id: expect.stringMatching(/^evt_/),
    status: "accepted",
    received_at: t.clock.now(),
    match: { status: "matched", order_id: "A-1042" },
  });

  const feed = await t.request("GET", "/connector/v1/matches", { headers });
  expect(feed.body.data).toHaveLength(1);
  expect(feed.body.data[0]).toMatchObject({ order_id: "A-1042", event_id: paid.body.event_id, device_id: null, payer_name: "Yanina Man*", security_code: "482", method: "auto" });
  const ack = await t.request("POST", "/connector/v1/matches/ack", { headers, body: { through: feed.body.next_cursor } });
  expect(ack.body).toEqual({ acknowledged_through: feed.body.next_cursor });
  expect((await t.request("GET", "/connector/v1/matches", { headers })).body.data).toEqual([]);
  expect((await t.request("GET", "/connector/v1/orders/A-1042", { headers })).body.status).toBe("matched");
});

test("a live key gets 403 test_mode_only, before its body is looked at", async () => {
  const ten = t.tenant();
  for (const body of [payment(), "{broken"]) {
    const res = await t.request("POST", "/connector/v1/test/payments", { headers: { ...bearer(ten.keys.live), "content-type": "application/json" }, body });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe("test_mode_only");
  }
});

test("each request is a new payment unless it carries its own event_id; then it replays", async () => {
  const ten = t.tenant();
  const headers = bearer(ten.keys.test);
  const a = await t.request("POST", "/connector/v1/test/payments", { headers, body: payment() });
  const b = await t.request("POST", "/connector/v1/test/payments", { headers, body: payment() });
  expect(a.body.event_id).not.toBe(b.body.event_id);

  const first = await t.request("POST", "/connector/v1/test/payments", { headers: { ...headers, "idempotency-key": "shop-test-1" }, body: payment({ amount: 777 }) });
  expect(first.status).toBe(201);
  expect(first.body.event_id).toBe("shop-test-1");
  t.clock.advance(1000);
  const replay = await t.request("POST", "/connector/v1/test/payments", { headers: { ...headers, "idempotency-key": "shop-test-1" }, body: payment({ amount: 777, occurred_at: first.body.received_at - 5000 }) });
  expect(replay.status).toBe(201);
  expect(replay.headers.get("idempotent-replayed")).toBe("true");
  expect(replay.body).toEqual(first.body);
  const reused = await t.request("POST", "/connector/v1/test/payments", { headers, body: payment({ amount: 778, event_id: "shop-test-1" }) });
  expect(reused.status).toBe(422);
  expect(reused.body.code).toBe("idempotency_key_reused");
  const mismatch = await t.request("POST", "/connector/v1/test/payments", { headers: { ...headers, "idempotency-key": "a" }, body: payment({ event_id: "b" }) });
  expect(mismatch.body.code).toBe("idempotency_key_mismatch");
});

describe("validated like a phone's event", () => {
  const cases: [string, Record<string, unknown>, string, string | null][] = [
    ["amount as text", { amount: "25" }, "invalid_request", "/amount"],
    ["currency USD", { currency: "USD" }, "unsupported_currency", "/currency"],
    ["another kind", { kind: "payment.refunded" }, "unsupported_event_kind", "/kind"],
    ["too old", { occurred_at: 1 }, "event_too_old", "/occurred_at"],
    ["in the future", { occurred_at: 8_000_000_000_000 }, "invalid_request", "/occurred_at"],
    ["source with capitals", { source: "Yape" }, "invalid_request", "/source"],
    ["event_id empty", { event_id: "" }, "invalid_request", "/event_id"],
    ["event_id null", { event_id: null }, "invalid_request", "/event_id"],
    ["event_id a number", { event_id: 5 }, "invalid_request", "/event_id"],
    ["event_id an object", { event_id: {} }, "invalid_request", "/event_id"],
    ["event_id a list", { event_id: [] }, "invalid_request", "/event_id"],
    ["event_id true", { event_id: true }, "invalid_request", "/event_id"],
    ["event_id with a space", { event_id: "a b" }, "invalid_request", "/event_id"],
    ["event_id of 65 characters", { event_id: "a".repeat(65) }, "invalid_request", "/event_id"],
  ];
  test.each(cases)("%s → %s", async (_n, change, code, field) => {
    const ten = t.tenant();
    const res = await t.request("POST", "/connector/v1/test/payments", { headers: bearer(ten.keys.test), body: payment(change) });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe(code);
    if (field) expect(res.body.errors[0].field).toBe(field);
    // nothing was stored for a refused request
    expect(t.store.sqlite.query("SELECT 1 FROM events WHERE tenant_id = ?").all(ten.tenant_id)).toEqual([]);
  });
});

test("twenty concurrent payments on one order make one match", async () => {
  const ten = t.tenant();
  const headers = bearer(ten.keys.test);
  await t.request("POST", "/connector/v1/orders", { headers, body: { orders: [{ id: "RACE-1", amount: 5000, currency: "PEN" }] } });
  const results = await Promise.all(
    Array.from({ length: 20 }, (_, i) =>
      t.request("POST", "/connector/v1/test/payments", { headers, body: payment({ amount: 5000, payer_name: `Payer ${i}`, security_code: undefined }) }),
    ),
  );
  expect(results.every((r) => r.status === 201)).toBe(true);
  const matched = results.filter((r) => r.body.match.status === "matched");
  expect(matched).toHaveLength(1);
  expect(matched[0]!.body.match.order_id).toBe("RACE-1");
  const feed = await t.request("GET", "/connector/v1/matches", { headers });
  expect(feed.body.data).toHaveLength(1);
  expect(feed.body.data[0].event_id).toBe(matched[0]!.body.event_id);
});
