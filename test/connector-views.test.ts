// contract §12: the reconciliation view of events and the devices view.
import { afterAll, describe, expect, test } from "bun:test";
import { cursorsOf } from "../src/connector/cursor";
import { devices } from "../src/store/schema";
import { makeTestApp } from "./support/harness";
import { bearer, order, pay, sync } from "./support/connector";

const t = await makeTestApp();
afterAll(() => t.close());
const MIN = 60_000;

describe("GET /connector/v1/events", () => {
  test("every status, filtered and paged in commit order, with the reconciliation fields", async () => {
    const ten = t.tenant();
    const scope = { tenantId: ten.tenant_id, environment: "test" as const };
    const headers = bearer(ten.keys.test);
    await sync(t, scope, [order("V-1", 2500), order("V-2", 3000), order("V-3", 3000)]);
    const matched = await pay(t, scope, { amount: 2500, payerName: "Ana", reference: "OP-9", deviceId: "dev_a", securityCode: "123" });
    const unmatched = await pay(t, scope, { amount: 7777, deviceId: "dev_a" });
    const ambiguous = await pay(t, scope, { amount: 3000, deviceId: "dev_a", source: "plin" });
    const duplicate = await pay(t, scope, { amount: 2500, payerName: "Ana", reference: "OP-9", deviceId: "dev_b", securityCode: "123" });
    expect([matched, unmatched, ambiguous, duplicate].map((p) => p.match.status)).toEqual(["matched", "unmatched", "ambiguous", "duplicate"]);

    const all = await t.request("GET", "/connector/v1/events", { headers });
    expect(all.status).toBe(200);
    expect(all.body.data.map((e: any) => e.event_id)).toEqual([matched.eventId, unmatched.eventId, ambiguous.eventId, duplicate.eventId]);
    expect(all.body.data[0]).toEqual({
      event_id: matched.eventId,
      device_id: "dev_a",
      source: "yape",
      amount: 2500,
      currency: "PEN",
      payer_name: "Ana",
      security_code: "123",
      reference: "OP-9",
      occurred_at: t.clock.now(),
      received_at: t.clock.now(),
      match_status: "matched",
      order_id: "V-1",
      duplicate_of: null,
    });
    expect(all.body.data[3]).toMatchObject({ match_status: "duplicate", duplicate_of: matched.eventId, order_id: null });

    for (const [status, id] of [["matched", matched.eventId], ["unmatched", unmatched.eventId], ["ambiguous", ambiguous.eventId], ["duplicate", duplicate.eventId]] as const) {
      const res = await t.request("GET", `/connector/v1/events?status=${status}`, { headers });
      expect(res.body.data.map((e: any) => e.event_id)).toEqual([id]);
    }

    const p1 = await t.request("GET", "/connector/v1/events?limit=3", { headers });
    expect(p1.body.data).toHaveLength(3);
    expect(p1.body.has_more).toBe(true);
    const p2 = await t.request("GET", `/connector/v1/events?limit=3&after=${p1.body.next_cursor}`, { headers });
    expect(p2.body.data.map((e: any) => e.event_id)).toEqual([duplicate.eventId]);
    expect(p2.body.has_more).toBe(false);
    const p3 = await t.request("GET", `/connector/v1/events?after=${p2.body.next_cursor}`, { headers });
    expect(p3.body).toEqual({ data: [], next_cursor: p2.body.next_cursor, has_more: false });
  });

  test("a waiting event's status follows re-evaluation", async () => {
    const ten = t.tenant();
    const scope = { tenantId: ten.tenant_id, environment: "test" as const };
    const p = await pay(t, scope, { amount: 4200 });
    const status = async () => (await t.request("GET", "/connector/v1/events", { headers: bearer(ten.keys.test) })).body.data[0].match_status;
    expect(await status()).toBe("unmatched");
    await sync(t, scope, [order("W-1", 4200, { created_at: t.clock.now() - MIN }), order("W-2", 4200, { created_at: t.clock.now() - MIN })]);
    expect(await status()).toBe("ambiguous");
    await sync(t, scope, [order("W-1", 4200, { created_at: t.clock.now() - MIN, status: "cancelled" })]);
    expect(await status()).toBe("matched");
    expect(p.match.status).toBe("unmatched"); // the first answer stays what it was
  });

  const bad: [string | ((scope: { tenantId: string; environment: "test" }) => string), string, string][] = [
    ["?status=paid", "invalid_request", "/status"],
    ["?after=xyz", "invalid_cursor", "/after"],
    [(scope) => `?after=${cursorsOf(t.store).encode("match", scope, 1)}`, "invalid_cursor", "/after"],
    ["?after=", "invalid_cursor", "/after"],
    [`?after=${"A".repeat(65)}`, "invalid_cursor", "/after"],
    [`?status=matched&after=${"x".repeat(100)}`, "invalid_cursor", "/after"],
    ["?limit=1000", "invalid_request", "/limit"],
  ];
  test.each(bad)("%s → %s", async (query, code, field) => {
    const ten = t.tenant();
    const q = typeof query === "string" ? query : query({ tenantId: ten.tenant_id, environment: "test" });
    const res = await t.request("GET", `/connector/v1/events${q}`, { headers: bearer(ten.keys.test) });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe(code);
    expect(res.body.errors[0].field).toBe(field);
  });
});

describe("GET /connector/v1/devices", () => {
  function addDevice(tenantId: string, environment: "live" | "test", d: Partial<typeof devices.$inferInsert> & { id: string }) {
    t.store.db
      .insert(devices)
      .values({
        tenantId,
        environment,
        label: "Caja",
        platform: "android",
        appVersion: "1.0.0",
        osVersion: "13",
        secretEnc: "v1.x.y",
        createdAt: t.clock.now(),
        ...d,
      })
      .run();
  }

  test("online from the signed heartbeat (within 3 × 60 000 ms), latest health, revoked ones included", async () => {
    const ten = t.tenant();
    const now = t.clock.now();
    addDevice(ten.tenant_id, "test", {
      id: "dev_edge",
      label: "Caja 1",
      lastHeartbeatAt: now - 180_000,
      lastSeenAt: now - 1000,
      health: JSON.stringify({ battery_level: 80, charging: true, queue_depth: 2, app_version: "1.1.0", news_after: "nws_x" }),
    });
    addDevice(ten.tenant_id, "test", { id: "dev_late", label: "Caja 2", lastHeartbeatAt: now - 180_001, lastSeenAt: now, createdAt: now + 1 });
    addDevice(ten.tenant_id, "test", { id: "dev_never", label: "Caja 3", createdAt: now + 2 });
    addDevice(ten.tenant_id, "test", { id: "dev_revoked", label: "Caja 4", status: "revoked", lastHeartbeatAt: now, createdAt: now + 3 });
    addDevice(ten.tenant_id, "live", { id: "dev_live", label: "Live", lastHeartbeatAt: now });

    const res = await t.request("GET", "/connector/v1/devices", { headers: bearer(ten.keys.test) });
    expect(res.status).toBe(200);
    expect(res.body.data.map((d: any) => [d.device_id, d.online])).toEqual([
      ["dev_edge", true],
      ["dev_late", false],
      ["dev_never", false],
      ["dev_revoked", false],
    ]);
    expect(res.body.data[0]).toEqual({
      device_id: "dev_edge",
      label: "Caja 1",
      platform: "android",
      app_version: "1.1.0",
      os_version: "13",
      status: "active",
      online: true,
      last_seen_at: now - 1000,
      last_heartbeat_at: now - 180_000,
      health: { battery_level: 80, charging: true, queue_depth: 2, app_version: "1.1.0" },
      notifications: { payment: 0, not_a_payment: 0, unrecognized: 0, last_unrecognized_at: null },
    });
    expect(res.body.data[2].health).toEqual({});
    t.clock.advance(1);
    const later = await t.request("GET", "/connector/v1/devices", { headers: bearer(ten.keys.test) });
    expect(later.body.data[0].online).toBe(false);

    const live = await t.request("GET", "/connector/v1/devices", { headers: bearer(ten.keys.live) });
    expect(live.body.data.map((d: any) => d.device_id)).toEqual(["dev_live"]);
  });
});
