// contract §7: POST /device/v1/heartbeat — health snapshot, liveness by signed time, license and news.
import { afterAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { isOnline } from "../src/device/model";
import { devices } from "../src/store/schema";
import { addNews, setLicense } from "../src/tenants/service";
import { activatePhone, signedRequest, type Phone } from "./support/device";
import { makeTestApp } from "./support/harness";

const t = await makeTestApp();
afterAll(() => t.close());

const deviceRow = (id: string) => t.store.db.select().from(devices).where(eq(devices.id, id)).get()!;
const beat = (phone: Phone, body: unknown, timestamp?: number) => signedRequest(t, phone, "POST", "/device/v1/heartbeat", { body, timestamp });

describe("answer and snapshot", () => {
  test("200 with server_time, device, license, config and news; the report is kept", async () => {
    const phone = await activatePhone(t, { label: "Caja 2" });
    const report = {
      battery_level: 87,
      charging: false,
      notification_access: true,
      listener_connected: true,
      network: "wifi",
      app_version: "1.5.0",
      os_version: "15",
      queue_depth: 3,
      last_notification_at: t.clock.now() - 60_000,
      unknown_field: "ignored",
    };
    const res = await beat(phone, report);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      server_time: t.clock.now(),
      device: { device_id: phone.deviceId, label: "Caja 2", status: "active" },
      license: { status: "active", reason: null, plan: "standard", max_devices: 5, devices_in_use: 1, expires_at: null },
      config: { heartbeat_interval_ms: 60000, max_clock_skew_ms: 300000, max_event_bytes: 65536 },
      news: [],
    });
    const row = deviceRow(phone.deviceId);
    const { unknown_field: _, ...kept } = report;
    expect(JSON.parse(row.health!)).toEqual({ ...kept, reported_at: t.clock.now() });
    expect(row.lastHeartbeatAt).toBe(t.clock.now());
    expect(row.lastSeenAt).toBe(t.clock.now());
    expect([row.appVersion, row.osVersion]).toEqual(["1.5.0", "15"]);
  });

  test("an empty body without Content-Type is a valid heartbeat; null reads as absent", async () => {
    const phone = await activatePhone(t);
    expect((await signedRequest(t, phone, "POST", "/device/v1/heartbeat", {})).status).toBe(200);
    const res = await beat(phone, { battery_level: null, network: null });
    expect(res.status).toBe(200);
    expect(JSON.parse(deviceRow(phone.deviceId).health!)).toEqual({ reported_at: t.clock.now() });
  });

  test.each<[string, Record<string, unknown>, string]>([
    ["battery above 100", { battery_level: 101 }, "/battery_level"],
    ["negative queue", { queue_depth: -1 }, "/queue_depth"],
    ["fractional queue", { queue_depth: 1.5 }, "/queue_depth"],
    ["charging as text", { charging: "yes" }, "/charging"],
    ["network longer than 256", { network: "n".repeat(257) }, "/network"],
    ["app_version longer than 256", { app_version: "x".repeat(257) }, "/app_version"],
    ["os_version longer than 256", { os_version: "x".repeat(257) }, "/os_version"],
    ["news_after longer than 256", { news_after: "x".repeat(257) }, "/news_after"],
    ["network as a number", { network: 4 }, "/network"],
    ["last_notification_at as text", { last_notification_at: "yesterday" }, "/last_notification_at"],
  ])("400 invalid_request: %s", async (_name, body, field) => {
    const phone = await activatePhone(t);
    const res = await beat(phone, body);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("invalid_request");
    expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
    expect(deviceRow(phone.deviceId).health).toBeNull();
  });

  test("the text fields are plain strings (contract §7): a 100-character network, long versions, an unknown news_after", async () => {
    const phone = await activatePhone(t);
    const report = { network: "W".repeat(100), app_version: "1.5.0-".padEnd(256, "b"), os_version: "o".repeat(256) };
    const res = await beat(phone, { ...report, news_after: "n".repeat(256) });
    expect(res.status).toBe(200);
    expect(res.body.news).toEqual([]);
    const row = deviceRow(phone.deviceId);
    expect(JSON.parse(row.health!)).toEqual({ ...report, reported_at: t.clock.now() });
    expect([row.appVersion, row.osVersion]).toEqual([report.app_version, report.os_version]);
  });

  test("an empty app_version or os_version is accepted and keeps the version on record", async () => {
    const phone = await activatePhone(t);
    expect((await beat(phone, { app_version: "2.0.0", os_version: "15" })).status).toBe(200);
    t.clock.advance(1000);
    const res = await beat(phone, { app_version: "", os_version: "", network: "" });
    expect(res.status).toBe(200);
    const row = deviceRow(phone.deviceId);
    expect([row.appVersion, row.osVersion]).toEqual(["2.0.0", "15"]);
    expect(JSON.parse(row.health!)).toMatchObject({ network: "" });
  });

  test("the license in the answer follows the CLI's changes", async () => {
    const phone = await activatePhone(t);
    setLicense(t.store.db, t.clock, phone.tenantId, { plan: "pro", maxDevices: 9 });
    expect((await beat(phone, {})).body.license).toMatchObject({ plan: "pro", max_devices: 9 });
  });
});

describe("liveness uses the signed timestamp", () => {
  test("a late or replayed older heartbeat neither moves last_heartbeat_at back nor replaces the newer report", async () => {
    const phone = await activatePhone(t);
    const now = t.clock.now();
    await beat(phone, { battery_level: 50 }, now);
    const late = await beat(phone, { battery_level: 90, app_version: "0.9" }, now - 120_000);
    expect(late.status).toBe(200);
    const row = deviceRow(phone.deviceId);
    expect(row.lastHeartbeatAt).toBe(now);
    expect(JSON.parse(row.health!).battery_level).toBe(50);
    expect(row.appVersion).toBe("1.4.0");
    expect(row.lastSeenAt).toBe(now);
  });

  test("replaying a captured heartbeat four minutes later is accepted but does not make the silent phone online", async () => {
    const phone = await activatePhone(t);
    const signedAt = t.clock.now();
    const raw = JSON.stringify({ battery_level: 40 });
    const headers = { "content-type": "application/json", ...phone.client.signHeaders("POST", "http://localhost/device/v1/heartbeat", raw, signedAt) };
    const send = () => t.send(new Request("http://localhost/device/v1/heartbeat", { method: "POST", headers, body: raw }));
    expect((await send()).status).toBe(200);
    expect(isOnline(deviceRow(phone.deviceId).lastHeartbeatAt, t.clock.now())).toBe(true);
    t.clock.advance(4 * 60_000); // the phone went silent; someone replays its last request
    expect((await send()).status).toBe(200);
    expect(deviceRow(phone.deviceId).lastHeartbeatAt).toBe(signedAt);
    expect(isOnline(deviceRow(phone.deviceId).lastHeartbeatAt, t.clock.now())).toBe(false);
    t.clock.advance(2 * 60_000); // past the ±5 min window the replay is refused outright
    expect((await send()).body.code).toBe("timestamp_out_of_window");
  });
});

describe("news", () => {
  test("without news_after: the last 30 days, oldest first; with it: only newer items", async () => {
    const phone = await activatePhone(t);
    const old = addNews(t.store.db, t.clock, phone.tenantId, { title: "Old", body: "b", level: "info" });
    t.clock.advance(31 * 86_400_000);
    const n1 = addNews(t.store.db, t.clock, phone.tenantId, { title: "One", body: "b1", level: "warning" });
    t.clock.advance(1000);
    const n2 = addNews(t.store.db, t.clock, phone.tenantId, { title: "Two", body: "b2", level: "critical" });
    const all = await beat(phone, {});
    expect(all.body.news).toEqual([
      { id: n1.news_id, level: "warning", title: "One", body: "b1", published_at: n1.published_at },
      { id: n2.news_id, level: "critical", title: "Two", body: "b2", published_at: n2.published_at },
    ]);
    expect((await beat(phone, { news_after: n1.news_id })).body.news.map((n: { id: string }) => n.id)).toEqual([n2.news_id]);
    expect((await beat(phone, { news_after: n2.news_id })).body.news).toEqual([]);
    // news_after an old item returns what came after it, even past 30 days.
    expect((await beat(phone, { news_after: old.news_id })).body.news.map((n: { id: string }) => n.id)).toEqual([n1.news_id, n2.news_id]);
  });

  test("at most 20 items; another shop's news is never shown", async () => {
    const phone = await activatePhone(t);
    const other = await activatePhone(t);
    for (let i = 0; i < 25; i++) {
      t.clock.advance(1);
      addNews(t.store.db, t.clock, phone.tenantId, { title: `N${i}`, body: "b", level: "info" });
    }
    const res = await beat(phone, {});
    expect(res.body.news).toHaveLength(20);
    expect(res.body.news[0].title).toBe("N5");
    expect(res.body.news[19].title).toBe("N24");
    expect((await beat(other, {})).body.news).toEqual([]);
  });
});
