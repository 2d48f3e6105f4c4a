// contract §2.9: on every connector route, another tenant or the other environment sees nothing
// and gets 404 for a lookup across the line, never 403. Two tenants × two environments.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { devices } from "../src/store/schema";
import { makeTestApp } from "./support/harness";
import { bearer } from "./support/connector";

const t = await makeTestApp();
afterAll(() => t.close());

type Env = "live" | "test";
interface World {
  name: string;
  key: string;
  env: Env;
  tenantId: string;
  eventId: string; // a waiting event of this world
  matchId: string; // a match of this world
}

const worlds: World[] = [];
const payment = { kind: "payment.received", source: "yape", amount: 2500, currency: "PEN" };

beforeAll(async () => {
  for (const name of ["Alpha", "Beta"]) {
    const ten = t.tenant(name);
    for (const env of ["live", "test"] as Env[]) {
      const key = ten.keys[env];
      // the same order ids in every world
      const sync = await t.request("POST", "/connector/v1/orders", {
        headers: bearer(key),
        body: { orders: [{ id: "SHARED-1", amount: 2500, currency: "PEN" }, { id: "SHARED-2", amount: 9100, currency: "PEN" }] },
      });
      expect(sync.status).toBe(200);
      expect(sync.body.orders[0].status).toBe("pending"); // no other world's order or payment is seen
      t.store.db
        .insert(devices)
        .values({ id: `dev_${name}_${env}`, tenantId: ten.tenant_id, environment: env, label: `${name} ${env}`, platform: "android", appVersion: "1", osVersion: "1", secretEnc: "x", createdAt: t.clock.now() })
        .run();
      worlds.push({ name: `${name}/${env}`, key, env, tenantId: ten.tenant_id, eventId: "", matchId: "" });
    }
  }
  // payments: test worlds through the helper; live worlds through ingestion as a phone would
  const { pay } = await import("./support/connector");
  for (const w of worlds) {
    const scope = { tenantId: w.tenantId, environment: w.env };
    const phone = `dev_${w.name.replace("/", "_")}`; // the world's own phone, registered above
    const matched = await pay(t, scope, { amount: 2500, deviceId: phone });
    expect(matched.match).toEqual({ status: "matched", order_id: "SHARED-1" }); // its own order, nobody else's
    const waiting = await pay(t, scope, { amount: 4321, deviceId: phone, source: "plin" });
    expect(waiting.match.status).toBe("unmatched");
    w.eventId = waiting.eventId;
    const feed = await t.request("GET", "/connector/v1/matches", { headers: bearer(w.key) });
    expect(feed.body.data).toHaveLength(1);
    w.matchId = feed.body.data[0].id;
  }
});

const pairs = () => worlds.flatMap((a) => worlds.filter((b) => b !== a).map((b) => [a, b] as const));

describe("each world sees only its own data", () => {
  test("feed", async () => {
    for (const w of worlds) {
      const res = await t.request("GET", "/connector/v1/matches", { headers: bearer(w.key) });
      expect(res.body.data.map((m: any) => m.id)).toEqual([w.matchId]);
    }
  });

  test("events view", async () => {
    for (const w of worlds) {
      const res = await t.request("GET", "/connector/v1/events?status=unmatched", { headers: bearer(w.key) });
      expect(res.body.data.map((e: any) => e.event_id)).toEqual([w.eventId]);
      const all = await t.request("GET", "/connector/v1/events", { headers: bearer(w.key) });
      expect(all.body.data).toHaveLength(2);
    }
  });

  test("devices view", async () => {
    for (const w of worlds) {
      const res = await t.request("GET", "/connector/v1/devices", { headers: bearer(w.key) });
      expect(res.body.data.map((d: any) => d.device_id)).toEqual([`dev_${w.name.replace("/", "_")}`]);
    }
  });

  test("acknowledging in one world does not move another's feed", async () => {
    const [a, b] = worlds;
    const feedA = await t.request("GET", "/connector/v1/matches", { headers: bearer(a!.key) });
    await t.request("POST", "/connector/v1/matches/ack", { headers: bearer(a!.key), body: { through: feedA.body.next_cursor } });
    expect((await t.request("GET", "/connector/v1/matches", { headers: bearer(a!.key) })).body.data).toHaveLength(0);
    for (const w of worlds.slice(1)) {
      expect((await t.request("GET", "/connector/v1/matches", { headers: bearer(w.key) })).body.data).toHaveLength(1);
    }
    expect(b).toBeDefined();
  });
});

describe("lookups across the line are 404, never 403", () => {
  test("GET /orders/{id} of an id that exists only in another world", async () => {
    const [a] = worlds;
    await t.request("POST", "/connector/v1/orders", { headers: bearer(a!.key), body: { orders: [{ id: "ONLY-ALPHA-LIVE", amount: 100, currency: "PEN" }] } });
    for (const w of worlds) {
      const res = await t.request("GET", "/connector/v1/orders/ONLY-ALPHA-LIVE", { headers: bearer(w.key) });
      expect(res.status).toBe(w === a ? 200 : 404);
      if (w !== a) expect(res.body.code).toBe("order_not_found");
    }
  });

  test("manual match with another world's event or order", async () => {
    for (const [a, b] of pairs()) {
      // a's key, b's waiting event, an order that exists in every world
      const res = await t.request("POST", "/connector/v1/matches", { headers: bearer(a.key), body: { order_id: "SHARED-2", event_id: b.eventId } });
      expect(res.status).toBe(404);
      expect(res.body.code).toBe("event_not_found");
    }
    const [a] = worlds;
    await t.request("POST", "/connector/v1/orders", { headers: bearer(a!.key), body: { orders: [{ id: "ALPHA-ONLY-2", amount: 100, currency: "PEN" }] } });
    for (const w of worlds.slice(1)) {
      const res = await t.request("POST", "/connector/v1/matches", { headers: bearer(w.key), body: { order_id: "ALPHA-ONLY-2", event_id: w.eventId } });
      expect(res.status).toBe(404);
      expect(res.body.code).toBe("order_not_found");
    }
  });

  test("re-syncing the same order id in one world leaves the others untouched", async () => {
    const [a] = worlds;
    const res = await t.request("POST", "/connector/v1/orders", { headers: bearer(a!.key), body: { orders: [{ id: "SHARED-2", amount: 4321, currency: "PEN" }] } });
    expect(res.body.orders[0]).toMatchObject({ status: "matched", match: { event_id: a!.eventId } }); // its own waiting payment
    for (const w of worlds.slice(1)) {
      const o = await t.request("GET", "/connector/v1/orders/SHARED-2", { headers: bearer(w.key) });
      expect(o.body).toMatchObject({ amount: 9100, status: "pending", match: null });
      const ev = await t.request("GET", "/connector/v1/events?status=unmatched", { headers: bearer(w.key) });
      expect(ev.body.data.map((e: any) => e.event_id)).toEqual([w.eventId]);
    }
  });

  test("a test payment in one world never matches another world's order", async () => {
    const [, alphaTest, , betaTest] = worlds;
    await t.request("POST", "/connector/v1/orders", { headers: bearer(betaTest!.key), body: { orders: [{ id: "BETA-ONLY", amount: 6060, currency: "PEN" }] } });
    const res = await t.request("POST", "/connector/v1/test/payments", { headers: bearer(alphaTest!.key), body: { ...payment, amount: 6060, occurred_at: t.clock.now() } });
    expect(res.body.match.status).toBe("unmatched");
    expect((await t.request("GET", "/connector/v1/orders/BETA-ONLY", { headers: bearer(betaTest!.key) })).body.status).toBe("pending");
  });
});
