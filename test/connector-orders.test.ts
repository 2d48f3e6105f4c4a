// contract §9 through HTTP: order sync (all or nothing, per-field errors, identical re-sync,
// matched orders), GET /orders/{id}, body limits.
import { afterAll, describe, expect, test } from "bun:test";
import { makeTestApp, whileDatabaseLocked } from "./support/harness";
import { bearer, pay } from "./support/connector";

const t = await makeTestApp();
afterAll(() => t.close());
const HOUR = 3600_000;

function shop() {
  const ten = t.tenant();
  const headers = bearer(ten.keys.test);
  return {
    ten,
    scope: { tenantId: ten.tenant_id, environment: "test" as const },
    sync: (orders: unknown[]) => t.request("POST", "/connector/v1/orders", { headers, body: { orders } }),
    get: (id: string) => t.request("GET", `/connector/v1/orders/${encodeURIComponent(id)}`, { headers }),
    headers,
  };
}

const many = (n: number, amount = (i: number) => 1000 + i) =>
  Array.from({ length: n }, (_, i) => ({ id: `ORD-${i}`, amount: amount(i), currency: "PEN", customer_name: `Cliente ${i}` }));

describe("sync 500 orders, re-send, change, cancel", () => {
  test("a shop developer's first day", async () => {
    const s = shop();
    const first = await s.sync(many(500));
    expect(first.status).toBe(200);
    expect(first.body.orders).toHaveLength(500);
    expect(first.body.orders.map((o: any) => o.id)).toEqual(many(500).map((o) => o.id)); // input order
    expect(first.body.orders[0]).toEqual({
      id: "ORD-0",
      amount: 1000,
      expected_amount: 1000,
      currency: "PEN",
      status: "pending",
      created_at: t.clock.now(),
      expires_at: t.clock.now() + 24 * HOUR,
      customer_name: "Cliente 0",
      security_code: null,
      unique_amount: false,
      metadata: null,
      match: null,
      updated_at: t.clock.now(),
    });

    t.clock.advance(5000);
    const again = await s.sync(many(500));
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body); // nothing changed, not even updated_at or the default created_at

    t.clock.advance(5000);
    const changed = many(500, (i) => (i === 7 ? 9999 : 1000 + i));
    changed[8] = { ...changed[8]!, status: "cancelled" } as never;
    const third = await s.sync(changed);
    expect(third.body.orders[7]).toMatchObject({ amount: 9999, expected_amount: 9999, updated_at: t.clock.now() });
    expect(third.body.orders[8]).toMatchObject({ status: "cancelled", updated_at: t.clock.now() });
    expect(third.body.orders[9]).toEqual(first.body.orders[9]);
    const g = await s.get("ORD-8");
    expect(g.status).toBe(200);
    expect(g.body.status).toBe("cancelled");
  });

  test("501 orders are refused", async () => {
    const res = await shop().sync(many(501));
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("invalid_request");
    expect(res.body.errors[0].field).toBe("/orders");
  });
});

describe("all or nothing, with per-field errors", () => {
  const cases: [string, (orders: any[]) => void, string, string][] = [
    ["amount not an integer", (o) => (o[3].amount = 25.5), "/orders/3/amount", "invalid_request"],
    ["amount as text", (o) => (o[3].amount = "2500"), "/orders/3/amount", "invalid_request"],
    ["amount 0", (o) => (o[3].amount = 0), "/orders/3/amount", "invalid_request"],
    ["amount above 100 000 000", (o) => (o[3].amount = 100_000_001), "/orders/3/amount", "invalid_request"],
    ["id missing", (o) => delete o[2].id, "/orders/2/id", "invalid_request"],
    ["id with a space", (o) => (o[2].id = "A 1"), "/orders/2/id", "invalid_request"],
    ["id of one dot, which no URL can name", (o) => (o[1].id = "."), "/orders/1/id", "invalid_request"],
    ["id of two dots", (o) => (o[0].id = ".."), "/orders/0/id", "invalid_request"],
    ["created_at so late that the default expires_at passes the largest time", (o) => (o[1].created_at = 8_640_000_000_000_000), "/orders/1/created_at", "invalid_request"],
    ["id of 65 characters", (o) => (o[2].id = "x".repeat(65)), "/orders/2/id", "invalid_request"],
    ["status unknown", (o) => (o[1].status = "paid"), "/orders/1/status", "invalid_request"],
    ["customer_name too long", (o) => (o[1].customer_name = "n".repeat(129)), "/orders/1/customer_name", "invalid_request"],
    ["security_code too long", (o) => (o[1].security_code = "1".repeat(17)), "/orders/1/security_code", "invalid_request"],
    ["metadata not an object", (o) => (o[1].metadata = [1, 2]), "/orders/1/metadata", "invalid_request"],
    ["metadata over 4 KiB", (o) => (o[4].metadata = { blob: "x".repeat(4096) }), "/orders/4/metadata", "invalid_request"],
    ["expires_at equal to created_at", (o) => Object.assign(o[0], { created_at: 1000, expires_at: 1000 }), "/orders/0/expires_at", "invalid_request"],
    ["expires_at before the default created_at", (o) => (o[0].expires_at = 5), "/orders/0/expires_at", "invalid_request"],
    ["the same id twice", (o) => (o[4].id = o[1].id), "/orders/4/id", "invalid_request"],
    ["currency USD", (o) => (o[1].currency = "USD"), "/orders/1/currency", "unsupported_currency"],
  ];
  test.each(cases)("%s → %s", async (_n, spoil, field, code) => {
    const s = shop();
    const orders: any[] = many(5);
    spoil(orders);
    const res = await s.sync(orders);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe(code);
    expect(res.body.errors.map((e: any) => e.field)).toContain(field);
    for (const o of many(5)) expect((await s.get(o.id)).status).toBe(404); // nothing stored
  });

  test("unknown fields are ignored; metadata is stored and echoed as sent", async () => {
    const s = shop();
    const res = await s.sync([{ id: "M-1", amount: 100, currency: "PEN", colour: "red", metadata: { table: 7, items: [{ sku: "X", qty: 2 }], note: null } }]);
    expect(res.status).toBe(200);
    expect(res.body.orders[0].metadata).toEqual({ table: 7, items: [{ sku: "X", qty: 2 }], note: null });
    expect(res.body.orders[0]).not.toHaveProperty("colour");
    expect((await s.get("M-1")).body.metadata).toEqual({ table: 7, items: [{ sku: "X", qty: 2 }], note: null });
  });

  test("an empty batch is fine", async () => {
    const res = await shop().sync([]);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ orders: [] });
  });

  test("the body must be JSON with a JSON content type, at most 1 MiB", async () => {
    const s = shop();
    const malformed = await t.request("POST", "/connector/v1/orders", { headers: { ...s.headers, "content-type": "application/json" }, body: "{" });
    expect(malformed.body.code).toBe("malformed_json");
    const text = await t.request("POST", "/connector/v1/orders", { headers: { ...s.headers, "content-type": "text/plain" }, body: "{}" });
    expect(text.status).toBe(415);
    const big = await t.request("POST", "/connector/v1/orders", {
      headers: { ...s.headers, "content-type": "application/json; charset=utf-8" },
      body: JSON.stringify({ orders: [], pad: "x".repeat(1024 * 1024) }),
    });
    expect(big.status).toBe(413);
    expect(big.body).toMatchObject({ code: "payload_too_large", max_bytes: 1024 * 1024 });
    const notArray = await t.request("POST", "/connector/v1/orders", { headers: s.headers, body: { orders: "x" } });
    expect(notArray.body.errors[0].field).toBe("/orders");
  });
});

describe("defaults and re-syncs", () => {
  test("created_at defaults to now and expires_at to created_at + 24 h; a re-sync without them keeps them", async () => {
    const s = shop();
    const a = await s.sync([{ id: "D-1", amount: 100, currency: "PEN" }, { id: "D-2", amount: 100, currency: "PEN", created_at: 1_000_000 }]);
    expect(a.body.orders[0]).toMatchObject({ created_at: t.clock.now(), expires_at: t.clock.now() + 24 * HOUR });
    expect(a.body.orders[1]).toMatchObject({ created_at: 1_000_000, expires_at: 1_000_000 + 24 * HOUR, status: "expired" });
    t.clock.advance(60_000);
    const b = await s.sync([{ id: "D-1", amount: 100, currency: "PEN" }]);
    expect(b.body.orders[0]).toEqual(a.body.orders[0]);
  });

  test("a re-sync that drops an optional field clears it", async () => {
    const s = shop();
    await s.sync([{ id: "C-1", amount: 100, currency: "PEN", customer_name: "Ana", metadata: { a: 1 } }]);
    t.clock.advance(1000);
    const b = await s.sync([{ id: "C-1", amount: 100, currency: "PEN" }]);
    expect(b.body.orders[0]).toMatchObject({ customer_name: null, metadata: null, updated_at: t.clock.now() });
  });

  test("a cancelled order re-sent as pending reopens", async () => {
    const s = shop();
    await s.sync([{ id: "R-1", amount: 100, currency: "PEN", status: "cancelled" }]);
    const b = await s.sync([{ id: "R-1", amount: 100, currency: "PEN" }]);
    expect(b.body.orders[0].status).toBe("pending");
  });

  test("a pending order past expires_at reads as expired", async () => {
    const s = shop();
    await s.sync([{ id: "E-1", amount: 100, currency: "PEN", expires_at: t.clock.now() + 1000 }]);
    expect((await s.get("E-1")).body.status).toBe("pending");
    t.clock.advance(1000);
    expect((await s.get("E-1")).body.status).toBe("pending"); // exactly at expires_at
    t.clock.advance(1);
    expect((await s.get("E-1")).body.status).toBe("expired");
  });
});

describe("matched orders", () => {
  test("cannot be re-priced or cancelled (409 order_already_matched with order_id, nothing of the batch stored); other fields may change", async () => {
    const s = shop();
    await s.sync([{ id: "P-1", amount: 2500, currency: "PEN" }]);
    const p = await pay(t, s.scope, { amount: 2500 });
    expect(p.match.status).toBe("matched");

    const exact = await s.sync([{ id: "P-1", amount: 2500, currency: "PEN" }]);
    expect(exact.body.orders[0]).toMatchObject({ status: "matched", match: { event_id: p.eventId, order_id: "P-1", method: "auto" } });

    for (const change of [{ amount: 2600 }, { status: "cancelled" }]) {
      const res = await s.sync([{ id: "NEW-1", amount: 100, currency: "PEN" }, { id: "P-1", amount: 2500, currency: "PEN", ...change }]);
      expect(res.status).toBe(409);
      expect(res.body).toMatchObject({ code: "order_already_matched", order_id: "P-1" });
      expect((await s.get("NEW-1")).status).toBe(404);
    }
    t.clock.advance(1000);
    const renamed = await s.sync([{ id: "P-1", amount: 2500, currency: "PEN", customer_name: "Ana", metadata: { paid: true } }]);
    expect(renamed.status).toBe(200);
    expect(renamed.body.orders[0]).toMatchObject({ status: "matched", customer_name: "Ana", metadata: { paid: true }, updated_at: t.clock.now() });
  });
});

describe("GET /connector/v1/orders/{id}", () => {
  test("unknown id: 404 order_not_found", async () => {
    const res = await shop().get("NOPE");
    expect(res.status).toBe(404);
    expect(res.body.code).toBe("order_not_found");
  });

  test("ids with / and # work when percent-encoded", async () => {
    const s = shop();
    await s.sync([{ id: "2026/11#42", amount: 100, currency: "PEN" }]);
    const res = await s.get("2026/11#42");
    expect(res.status).toBe(200);
    expect(res.body.id).toBe("2026/11#42");
  });

  test("PUT on a known path is 405", async () => {
    const s = shop();
    const res = await t.request("PUT", "/connector/v1/orders/A-1", { headers: s.headers, body: {} });
    expect(res.status).toBe(405);
  });
});

describe("another write holds the database", () => {
  test("503 service_unavailable with Retry-After, nothing stored, and the same sync succeeds afterwards", async () => {
    // A CLI command holds the lock; the writer waits 50 ms for it instead of 5 s.
    const busy = await makeTestApp({ busyTimeoutMs: 50 });
    try {
      const headers = bearer(busy.tenant().keys.live);
      const s = {
        sync: (orders: unknown[]) => busy.request("POST", "/connector/v1/orders", { headers, body: { orders } }),
        get: (id: string) => busy.request("GET", `/connector/v1/orders/${encodeURIComponent(id)}`, { headers }),
      };
      const res = await whileDatabaseLocked(busy.store, () => s.sync(many(3)));
      expect(res.status).toBe(503);
      expect(res.headers.get("retry-after")).toBe("2");
      expect(res.body).toEqual({ title: "Service unavailable", status: 503, code: "service_unavailable", request_id: res.headers.get("x-request-id") });
      expect(busy.logs.at(-2)).toContain("database busy");
      expect((await s.get("ORD-0")).status).toBe(404);
      const again = await s.sync(many(3));
      expect(again.status).toBe(200);
      expect(again.body.orders).toHaveLength(3);
    } finally {
      await busy.close();
    }
  });
});
