// contract §10: POST /connector/v1/matches, a person's decision.
import { afterAll, describe, expect, test } from "bun:test";
import { sweepExpiredOrders } from "../src/matching/service";
import { makeTestApp } from "./support/harness";
import { bearer, eventRow, order, pay, sync } from "./support/connector";

const t = await makeTestApp();
afterAll(() => t.close());
const HOUR = 3600_000;

function shop() {
  const ten = t.tenant();
  const scope = { tenantId: ten.tenant_id, environment: "test" as const };
  const headers = bearer(ten.keys.test);
  return {
    scope,
    match: (body: unknown) => t.request("POST", "/connector/v1/matches", { headers, body }),
    feed: () => t.request("GET", "/connector/v1/matches", { headers }),
    getOrder: (id: string) => t.request("GET", `/connector/v1/orders/${id}`, { headers }),
  };
}

test("an ambiguous payment matched by hand to one of two orders, whatever the amounts; it reaches the feed", async () => {
  const s = shop();
  await sync(t, s.scope, [order("M-1", 2500), order("M-2", 2500), order("M-3", 9999)]);
  const p = await pay(t, s.scope, { amount: 2500, payerName: "Ana" });
  expect(p.match.status).toBe("ambiguous");

  const res = await s.match({ order_id: "M-3", event_id: p.eventId });
  expect(res.status).toBe(201);
  expect(res.body).toMatchObject({ id: expect.stringMatching(/^mat_/), order_id: "M-3", event_id: p.eventId, amount: 2500, method: "manual", matched_at: t.clock.now() });
  expect((await s.getOrder("M-3")).body).toMatchObject({ status: "matched", match: { id: res.body.id, method: "manual" } });
  expect(eventRow(t.store, p.eventId)).toMatchObject({ match_status: "matched", order_id: "M-3" });
  expect((await s.feed()).body.data.map((m: any) => m.id)).toEqual([res.body.id]);
  // the other candidates stay pending
  expect((await s.getOrder("M-1")).body.status).toBe("pending");
});

test("an unmatched payment can be matched to an expired order", async () => {
  const s = shop();
  const now = t.clock.now();
  await sync(t, s.scope, [order("X-1", 2500, { created_at: now - 3 * HOUR, expires_at: now - HOUR })]);
  const p = await pay(t, s.scope, { amount: 2500, occurredAt: now - 30 * 60_000 });
  expect(p.match.status).toBe("unmatched"); // the order had expired: no automatic match
  await sweepExpiredOrders(t.store.db, t.writer, now);
  const res = await s.match({ order_id: "X-1", event_id: p.eventId });
  expect(res.status).toBe(201);
  expect((await s.getOrder("X-1")).body.status).toBe("matched");
});

describe("refusals", () => {
  test("either side already matched: 409 already_matched with the existing match; repeating is harmless", async () => {
    const s = shop();
    await sync(t, s.scope, [order("A-1", 2500), order("A-2", 7000)]);
    const auto = await pay(t, s.scope, { amount: 2500 });
    const loose = await pay(t, s.scope, { amount: 1234 });
    const orderTaken = await s.match({ order_id: "A-1", event_id: loose.eventId });
    expect(orderTaken.status).toBe(409);
    expect(orderTaken.body).toMatchObject({ code: "already_matched", order_id: "A-1", match: { order_id: "A-1", event_id: auto.eventId } });
    const eventTaken = await s.match({ order_id: "A-2", event_id: auto.eventId });
    expect(eventTaken.status).toBe(409);
    expect(eventTaken.body.code).toBe("already_matched");

    const ok = await s.match({ order_id: "A-2", event_id: loose.eventId });
    expect(ok.status).toBe(201);
    const again = await s.match({ order_id: "A-2", event_id: loose.eventId });
    expect(again.status).toBe(409);
    expect(again.body.match.id).toBe(ok.body.id);
    expect((await s.feed()).body.data).toHaveLength(2);
  });

  test("unknown order or event: 404", async () => {
    const s = shop();
    await sync(t, s.scope, [order("K-1", 100)]);
    const p = await pay(t, s.scope, { amount: 555 });
    const noOrder = await s.match({ order_id: "NOPE", event_id: p.eventId });
    expect(noOrder.status).toBe(404);
    expect(noOrder.body.code).toBe("order_not_found");
    const noEvent = await s.match({ order_id: "K-1", event_id: "nope" });
    expect(noEvent.status).toBe(404);
    expect(noEvent.body.code).toBe("event_not_found");
  });

  test("a cancelled order: 409 order_cancelled; a duplicate event: 409 event_is_duplicate", async () => {
    const s = shop();
    await sync(t, s.scope, [order("C-1", 100, { status: "cancelled" }), order("C-2", 100)]);
    const p = await pay(t, s.scope, { amount: 555, reference: "R1", deviceId: "dev_1" });
    const dup = await pay(t, s.scope, { amount: 555, reference: "R1", deviceId: "dev_2" });
    expect(dup.match.status).toBe("duplicate");
    const cancelled = await s.match({ order_id: "C-1", event_id: p.eventId });
    expect(cancelled.status).toBe(409);
    expect(cancelled.body).toMatchObject({ code: "order_cancelled", order_id: "C-1" });
    const duplicate = await s.match({ order_id: "C-2", event_id: dup.eventId });
    expect(duplicate.status).toBe(409);
    expect(duplicate.body).toMatchObject({ code: "event_is_duplicate", duplicate_of: p.eventId });
  });

  test("two phones with the same event_id: device_id picks one", async () => {
    const s = shop();
    await sync(t, s.scope, [order("S-1", 100)]);
    await pay(t, s.scope, { amount: 321, eventId: "same-id", deviceId: "dev_x", source: "plin" });
    await pay(t, s.scope, { amount: 322, eventId: "same-id", deviceId: "dev_y" });
    const unclear = await s.match({ order_id: "S-1", event_id: "same-id" });
    expect(unclear.status).toBe(400);
    expect(unclear.body.errors[0].field).toBe("/device_id");
    const ok = await s.match({ order_id: "S-1", event_id: "same-id", device_id: "dev_y" });
    expect(ok.status).toBe(201);
    expect(ok.body).toMatchObject({ device_id: "dev_y", amount: 322 });
  });

  test("invalid body: 400 with fields", async () => {
    const res = await shop().match({ order_id: 5 });
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: any) => e.field).sort()).toEqual(["/event_id", "/order_id"]);
  });
});
