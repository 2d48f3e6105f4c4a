// contract §4: POST /device/v1/activation, every outcome in its order, and GET /device/v1/time.
import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { createActivationCode } from "../src/device/codes";
import { revokeDevice } from "../src/device/service";
import { devices } from "../src/store/schema";
import { setLicense } from "../src/tenants/service";
import { makeTestApp, type TestApp } from "./support/harness";

const t = await makeTestApp();
afterAll(() => t.close());

let ipCounter = 0;
/** A fresh client address per test, so failure buckets do not leak between tests. */
let ip = "";
beforeEach(() => {
  ip = `10.0.${Math.floor(++ipCounter / 250)}.${ipCounter % 250}`;
});

const phoneFields = { device_label: "Caja 1", app_version: "1.4.0", platform: "android", os_version: "14" };

function activate(code: string, over: Record<string, unknown> = {}, app: TestApp = t, from = ip) {
  return app.request("POST", "/device/v1/activation", { body: { activation_code: code, ...phoneFields, ...over }, ip: from });
}

function newCode(env: "live" | "test" = "live", tenantId = t.tenant().tenant_id, ttl?: number) {
  return { tenantId, ...createActivationCode(t.store.db, t.clock, tenantId, env, ttl) };
}

const deviceCount = (tenantId: string) => t.store.db.select().from(devices).where(eq(devices.tenantId, tenantId)).all().length;

describe("201", () => {
  test("a code typed in lower case with spaces links the phone", async () => {
    const c = newCode("test");
    const res = await activate(c.code.toLowerCase().replace(/-/g, " "));
    expect(res.status).toBe(201);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.body).toEqual({
      device_id: expect.stringMatching(/^dev_[A-Za-z0-9]{20}$/),
      secret: expect.stringMatching(/^[A-Za-z0-9_-]{43,}$/),
      tenant_name: "Bodega Rosa",
      environment: "test",
      api_base_url: "http://localhost/device/v1",
      tls_fingerprint: null, // this app is given no certificate (as with --tls off)
      license: { status: "active", reason: null, plan: "standard", max_devices: 5, devices_in_use: 1, expires_at: null },
      server_time: t.clock.now(),
      config: { heartbeat_interval_ms: 60000, max_clock_skew_ms: 300000, max_event_bytes: 65536 },
    });
    expect(Buffer.from(res.body.secret, "base64url").length).toBeGreaterThanOrEqual(32);
  });

  test("the secret is stored encrypted, never in clear, and never logged", async () => {
    const c = newCode();
    const res = await activate(c.code);
    expect(res.status).toBe(201);
    const row = t.store.db.select().from(devices).where(eq(devices.id, res.body.device_id)).get()!;
    expect(row.secretEnc).not.toContain(res.body.secret);
    const dbBytes = Buffer.from(await Bun.file(t.store.path).arrayBuffer()).toString("latin1");
    const wal = await Bun.file(`${t.store.path}-wal`).arrayBuffer().then((b) => Buffer.from(b).toString("latin1"), () => "");
    expect(dbBytes + wal).not.toContain(res.body.secret);
    expect(t.logs.join("\n")).not.toContain(res.body.secret);
    expect(t.logs.join("\n")).not.toContain(c.code.replace(/-/g, ""));
    // …and the data dir's master key opens it.
    const { createSecretBox, loadMasterKey } = await import("../src/store/secret-box");
    const box = await createSecretBox(loadMasterKey(t.dataDir));
    expect(await box.open(row.secretEnc)).toBe(res.body.secret);
  });

  test("api_base_url follows the Host header, or --public-url when set; tls_fingerprint is the served certificate's", async () => {
    const c = newCode();
    const res = await t.send(
      new Request("http://localhost/device/v1/activation", {
        method: "POST",
        headers: { "content-type": "application/json", host: "192.168.1.20:8443" },
        body: JSON.stringify({ activation_code: c.code, ...phoneFields }),
      }),
      ip,
    );
    expect(res.body.api_base_url).toBe("http://192.168.1.20:8443/device/v1");

    const fp = "bd5d8d31c0a2f7e94b1d6c3a8e5f2b7d9c4e1a6f3b8d2c7e5a9f1b4d6c8e2a09";
    const other = await makeTestApp({ publicUrl: "https://caja.example.pe", tlsFingerprint: fp });
    try {
      const tenant = other.tenant();
      const code = createActivationCode(other.store.db, other.clock, tenant.tenant_id, "live");
      const r = await activate(code.code, {}, other);
      expect(r.status).toBe(201);
      expect(r.body.api_base_url).toBe("https://caja.example.pe/device/v1");
      // contract §17: the certificate the phone must pin, as serve was given it.
      expect(r.body.tls_fingerprint).toBe(fp);
    } finally {
      other.close();
    }
  });

  test("unknown fields are ignored", async () => {
    const c = newCode();
    expect((await activate(c.code, { imei: "123", extra: { a: 1 } })).status).toBe(201);
  });
});

describe("400 invalid_request", () => {
  test.each([
    [{ activation_code: undefined }, "/activation_code"],
    [{ device_label: "" }, "/device_label"],
    [{ device_label: "x".repeat(65) }, "/device_label"],
    [{ app_version: "x".repeat(33) }, "/app_version"],
    [{ platform: "windows" }, "/platform"],
    [{ os_version: 14 }, "/os_version"],
    [{ activation_code: "WDJB-MJHT-KXQA" }, "/activation_code"],
    [{ activation_code: "WDJB-MJHT" }, "/activation_code"],
  ])("%p → error at %s", async (over, field) => {
    const res = await activate("WDJB-MJHT-KXQP", over);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("invalid_request");
    expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
  });

  test("a body that is not an object", async () => {
    const res = await t.request("POST", "/device/v1/activation", { body: "[1,2]", headers: { "content-type": "application/json" }, ip });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("invalid_request");
  });

  test("415, malformed JSON and 413 over 4 KiB", async () => {
    const c = newCode();
    const asText = await t.request("POST", "/device/v1/activation", { body: JSON.stringify({ activation_code: c.code, ...phoneFields }), headers: { "content-type": "text/plain" }, ip });
    expect(asText.status).toBe(415);
    expect(asText.body.code).toBe("unsupported_media_type");
    const broken = await t.request("POST", "/device/v1/activation", { body: "{", headers: { "content-type": "application/json" }, ip });
    expect(broken.body.code).toBe("malformed_json");
    const big = await activate(c.code, { padding: "x".repeat(4200) });
    expect(big.status).toBe(413);
    expect(big.body).toMatchObject({ code: "payload_too_large", max_bytes: 4096 });
    // None of these spent the code.
    expect((await activate(c.code)).status).toBe(201);
  });
});

describe("404, 410", () => {
  test("unknown code → 404 activation_code_unknown", async () => {
    const res = await activate("BBBB-BBBB-BBBB");
    expect(res.status).toBe(404);
    expect(res.body.code).toBe("activation_code_unknown");
  });

  test("repeating a successful activation → 410 activation_code_used, no second device", async () => {
    const c = newCode();
    const first = await activate(c.code);
    expect(first.status).toBe(201);
    const again = await activate(c.code);
    expect(again.status).toBe(410);
    expect(again.body.code).toBe("activation_code_used");
    expect(again.text).not.toContain(first.body.secret);
    expect(deviceCount(c.tenantId)).toBe(1);
  });

  test("past its TTL → 410 activation_code_expired; used wins over expired", async () => {
    const c = newCode("live", undefined, 60);
    const used = newCode("live", c.tenantId, 60);
    expect((await activate(used.code)).status).toBe(201);
    t.clock.advance(60_001);
    const res = await activate(c.code);
    expect(res.status).toBe(410);
    expect(res.body.code).toBe("activation_code_expired");
    expect((await activate(used.code)).body.code).toBe("activation_code_used");
  });

  test("at exactly its expiry the code still works", async () => {
    const c = newCode("live", undefined, 60);
    t.clock.advance(60_000);
    expect((await activate(c.code)).status).toBe(201);
  });
});

describe("403: the code is not spent", () => {
  test("license suspended → 403 license_suspended with license; works once reactivated", async () => {
    const c = newCode();
    setLicense(t.store.db, t.clock, c.tenantId, { status: "suspended" });
    const res = await activate(c.code);
    expect(res.status).toBe(403);
    expect(res.body.code).toBe("license_suspended");
    expect(res.body.license).toMatchObject({ status: "suspended", reason: "suspended" });
    setLicense(t.store.db, t.clock, c.tenantId, { status: "active" });
    expect((await activate(c.code)).status).toBe(201);
  });

  test("license past expires_at reads as suspended (expired)", async () => {
    const c = newCode();
    setLicense(t.store.db, t.clock, c.tenantId, { expiresAt: t.clock.now() - 1 });
    const res = await activate(c.code);
    expect(res.status).toBe(403);
    expect(res.body.license).toMatchObject({ status: "suspended", reason: "expired" });
  });

  test("max_devices reached → 403 device_limit_reached; counts both environments, not revoked phones", async () => {
    const tenantId = t.tenant().tenant_id;
    setLicense(t.store.db, t.clock, tenantId, { maxDevices: 2 });
    const live = await activate(newCode("live", tenantId).code);
    expect((await activate(newCode("test", tenantId).code)).status).toBe(201);
    const c = newCode("live", tenantId);
    const res = await activate(c.code);
    expect(res.status).toBe(403);
    expect(res.body.code).toBe("device_limit_reached");
    expect(res.body.license).toMatchObject({ max_devices: 2, devices_in_use: 2 });
    revokeDevice(t.store.db, t.clock, live.body.device_id);
    const ok = await activate(c.code);
    expect(ok.status).toBe(201);
    expect(ok.body.license.devices_in_use).toBe(2);
  });
});

describe("429: failed attempts per address", () => {
  test("10 failures (400 by the code, 404, 410) empty the bucket; then 429 with Retry-After, before the code is looked at", async () => {
    const good = newCode();
    const used = newCode("live", good.tenantId);
    expect((await activate(used.code)).status).toBe(201); // successes spend nothing
    for (let i = 0; i < 4; i++) expect((await activate("BBBB-BBBB-BBBB")).status).toBe(404);
    for (let i = 0; i < 3; i++) expect((await activate(used.code)).status).toBe(410);
    for (let i = 0; i < 3; i++) expect((await activate("nope")).status).toBe(400);
    // Invalid fields other than the code do not spend, and still answer 400 first.
    const badLabel = await activate(good.code, { device_label: "" });
    expect(badLabel.status).toBe(400);

    const limited = await activate(good.code);
    expect(limited.status).toBe(429);
    expect(limited.body.code).toBe("rate_limited");
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(limited.headers.get("ratelimit-policy")).toBe('"activation";q=10;w=600');
    expect(limited.headers.get("ratelimit")).toMatch(/^"activation";r=0;t=\d+$/);

    // Another address is not affected.
    const elsewhere = newCode("live", good.tenantId);
    expect((await activate(elsewhere.code, {}, t, "10.9.9.9")).status).toBe(201);

    // One attempt comes back after Retry-After; the code was never spent.
    t.clock.advance(Number(limited.headers.get("retry-after")) * 1000);
    expect((await activate(good.code)).status).toBe(201);
  });
});

test("twenty identical requests at once: exactly one device", async () => {
  const c = newCode();
  const results = await Promise.all(Array.from({ length: 20 }, (_, i) => activate(c.code, {}, t, `10.50.0.${i}`)));
  const statuses = results.map((r) => r.status).sort();
  expect(statuses.filter((s) => s === 201)).toHaveLength(1);
  expect(statuses.filter((s) => s === 410)).toHaveLength(19);
  expect(results.filter((r) => r.status === 410).every((r) => r.body.code === "activation_code_used")).toBe(true);
  expect(deviceCount(c.tenantId)).toBe(1);
});

test("GET /device/v1/time answers the server clock, unsigned", async () => {
  const res = await t.request("GET", "/device/v1/time");
  expect(res.status).toBe(200);
  expect(res.body).toEqual({ server_time: t.clock.now() });
  const wrong = await t.request("POST", "/device/v1/time");
  expect(wrong.status).toBe(405);
});
