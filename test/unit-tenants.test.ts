// Tenants, connector keys, licenses and news (contract §3, §7) as plain services over a real store.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ManualClock } from "../src/clock";
import { hmacSha256Hex, sha256Hex } from "../src/ids";
import { loadMasterKey } from "../src/store/secret-box";
import { openStore, type Store } from "../src/store/db";
import { apiKeys, devices } from "../src/store/schema";
import {
  addNews,
  createKey,
  createTenant,
  findActiveKey,
  getLicense,
  getTenant,
  listKeys,
  listTenants,
  newsFor,
  NotFoundError,
  revokeKey,
  setLicense,
} from "../src/tenants/service";

let dir: string;
let store: Store;
let clock: ManualClock;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "cuadra-unit-"));
  store = openStore(dir);
  clock = new ManualClock();
});
afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

const DAY = 24 * 3600 * 1000;

function addDevice(tenantId: string, environment: "live" | "test", status: "active" | "revoked" = "active") {
  const id = `dev_${Math.random().toString(36).slice(2, 12)}`;
  store.db
    .insert(devices)
    .values({ id, tenantId, environment, label: "Caja", platform: "android", appVersion: "1.0", osVersion: "14", secretEnc: "v1.x.y", status, createdAt: clock.now() })
    .run();
  return id;
}

describe("tenants and keys", () => {
  test("a tenant comes with one live and one test key of the contract's form", () => {
    const t = createTenant(store.db, clock, "Bodega Rosa");
    expect(t.tenant_id).toMatch(/^ten_[0-9A-Za-z]{20}$/);
    expect(t.name).toBe("Bodega Rosa");
    expect(t.keys.live).toMatch(/^sk_live_[0-9A-Za-z]{32,}$/);
    expect(t.keys.test).toMatch(/^sk_test_[0-9A-Za-z]{32,}$/);
    expect(listTenants(store.db)).toEqual([{ tenant_id: t.tenant_id, name: "Bodega Rosa", created_at: clock.now() }]);
  });

  test("only an HMAC of a key under the master key is stored (contract §20): not the key, not its SHA-256", () => {
    const t = createTenant(store.db, clock, "Bodega Rosa");
    const extra = createKey(store.db, clock, t.tenant_id, "test");
    const rows = store.db.select().from(apiKeys).all();
    const masterKey = loadMasterKey(dir);
    const keys = [t.keys.live, t.keys.test, extra.key];
    expect(rows.map((r) => r.keyHash).sort()).toEqual(keys.map((k) => hmacSha256Hex(masterKey, sha256Hex(k))).sort());
    for (const k of keys) expect(rows.map((r) => r.keyHash)).not.toContain(sha256Hex(k));
    const files = readdirSync(dir).filter((f) => f.startsWith("cuadra.db"));
    const bytes = files.map((f) => readFileSync(join(dir, f)).toString("latin1")).join("");
    expect(bytes.length).toBeGreaterThan(0);
    for (const key of [t.keys.live, t.keys.test, extra.key]) {
      expect(bytes).not.toContain(key);
      expect(bytes).not.toContain(key.slice(12)); // nor its random part
    }
  });

  test("a key is found by its text and decides tenant and environment; revoked keys are not found", () => {
    const a = createTenant(store.db, clock, "A");
    const b = createTenant(store.db, clock, "B");
    expect(findActiveKey(store.db, a.keys.test)).toMatchObject({ tenantId: a.tenant_id, environment: "test" });
    expect(findActiveKey(store.db, b.keys.live)).toMatchObject({ tenantId: b.tenant_id, environment: "live" });
    // The text does not decide: an sk_live_ prefix on someone else's random part finds nothing.
    expect(findActiveKey(store.db, "sk_live_" + a.keys.test.slice(8))).toBeNull();
    const keyId = listKeys(store.db, a.tenant_id).find((k) => k.environment === "test")!.key_id;
    clock.advance(5000);
    const revoked = revokeKey(store.db, clock, keyId);
    expect(revoked).toEqual({ key_id: keyId, revoked_at: clock.now() });
    expect(findActiveKey(store.db, a.keys.test)).toBeNull();
    expect(findActiveKey(store.db, a.keys.live)).not.toBeNull();
  });

  test("revoking twice keeps the first time; an unknown key is NotFoundError", () => {
    const t = createTenant(store.db, clock, "A");
    const keyId = listKeys(store.db, t.tenant_id)[0]!.key_id;
    const first = revokeKey(store.db, clock, keyId);
    clock.advance(60_000);
    expect(revokeKey(store.db, clock, keyId)).toEqual(first);
    expect(() => revokeKey(store.db, clock, "key_nope")).toThrow(NotFoundError);
  });

  test("key list shows prefix and last four, never the key", () => {
    const t = createTenant(store.db, clock, "A");
    const list = listKeys(store.db, t.tenant_id);
    expect(list).toHaveLength(2);
    for (const k of list) {
      expect(Object.keys(k).sort()).toEqual(["created_at", "environment", "key_id", "last4", "prefix", "revoked_at"]);
      const key = k.environment === "live" ? t.keys.live : t.keys.test;
      expect(key.startsWith(k.prefix)).toBe(true);
      expect(k.prefix).toBe(key.slice(0, `sk_${k.environment}_`.length + 4));
      expect(key.endsWith(k.last4)).toBe(true);
      expect(k.last4).toHaveLength(4);
      expect(k.revoked_at).toBeNull();
      expect(JSON.stringify(k)).not.toContain(key);
    }
  });

  test("unknown tenants are NotFoundError everywhere", () => {
    expect(() => getTenant(store.db, "ten_nope")).toThrow(NotFoundError);
    expect(() => createKey(store.db, clock, "ten_nope", "live")).toThrow(NotFoundError);
    expect(() => listKeys(store.db, "ten_nope")).toThrow(NotFoundError);
    expect(() => getLicense(store.db, clock, "ten_nope")).toThrow(NotFoundError);
    expect(() => setLicense(store.db, clock, "ten_nope", { plan: "x" })).toThrow(NotFoundError);
    expect(() => addNews(store.db, clock, "ten_nope", { title: "t", body: "b", level: "info" })).toThrow(NotFoundError);
  });
});

describe("license", () => {
  test("a new tenant's license", () => {
    const t = createTenant(store.db, clock, "A");
    expect(getLicense(store.db, clock, t.tenant_id)).toEqual({
      status: "active",
      reason: null,
      plan: "standard",
      max_devices: 5,
      devices_in_use: 0,
      expires_at: null,
    });
  });

  test("past expires_at it reads as suspended with reason expired; at expires_at it is still active", () => {
    const t = createTenant(store.db, clock, "A");
    const at = clock.now() + DAY;
    expect(setLicense(store.db, clock, t.tenant_id, { expiresAt: at })).toMatchObject({ status: "active", reason: null, expires_at: at });
    clock.set(at);
    expect(getLicense(store.db, clock, t.tenant_id)).toMatchObject({ status: "active", reason: null });
    clock.advance(1);
    expect(getLicense(store.db, clock, t.tenant_id)).toMatchObject({ status: "suspended", reason: "expired", expires_at: at });
    expect(setLicense(store.db, clock, t.tenant_id, { expiresAt: null })).toMatchObject({ status: "active", reason: null, expires_at: null });
  });

  test("a suspension says suspended, even when also expired", () => {
    const t = createTenant(store.db, clock, "A");
    setLicense(store.db, clock, t.tenant_id, { status: "suspended", expiresAt: clock.now() - 1 });
    expect(getLicense(store.db, clock, t.tenant_id)).toMatchObject({ status: "suspended", reason: "suspended" });
    setLicense(store.db, clock, t.tenant_id, { status: "active" });
    expect(getLicense(store.db, clock, t.tenant_id)).toMatchObject({ status: "suspended", reason: "expired" });
  });

  test("plan and max_devices change only what is given", () => {
    const t = createTenant(store.db, clock, "A");
    expect(setLicense(store.db, clock, t.tenant_id, { plan: "pro", maxDevices: 12 })).toMatchObject({ plan: "pro", max_devices: 12, status: "active" });
    expect(setLicense(store.db, clock, t.tenant_id, {})).toMatchObject({ plan: "pro", max_devices: 12 });
  });

  test("devices_in_use counts the tenant's non-revoked devices in both environments", () => {
    const a = createTenant(store.db, clock, "A");
    const b = createTenant(store.db, clock, "B");
    addDevice(a.tenant_id, "live");
    addDevice(a.tenant_id, "test");
    addDevice(a.tenant_id, "live", "revoked");
    addDevice(b.tenant_id, "live");
    expect(getLicense(store.db, clock, a.tenant_id).devices_in_use).toBe(2);
    expect(getLicense(store.db, clock, b.tenant_id).devices_in_use).toBe(1);
  });
});

describe("news", () => {
  test("add returns its id and publication time", () => {
    const t = createTenant(store.db, clock, "A");
    expect(addNews(store.db, clock, t.tenant_id, { title: "Hola", body: "Nueva versión", level: "warning" })).toEqual({
      news_id: expect.stringMatching(/^nws_[0-9A-Za-z]{20}$/),
      published_at: clock.now(),
    });
  });

  test("without news_after: the last 30 days, oldest first, at most the newest 20", () => {
    const t = createTenant(store.db, clock, "A");
    addNews(store.db, clock, t.tenant_id, { title: "old", body: "b", level: "info" });
    clock.advance(31 * DAY);
    const titles: string[] = [];
    for (let i = 0; i < 25; i++) {
      clock.advance(1000);
      titles.push(`n${i}`);
      addNews(store.db, clock, t.tenant_id, { title: `n${i}`, body: "b", level: "info" });
    }
    const got = newsFor(store.db, clock, t.tenant_id);
    expect(got.map((n) => n.title)).toEqual(titles.slice(5));
    expect(Object.keys(got[0]!).sort()).toEqual(["body", "id", "level", "published_at", "title"]);
  });

  test("with news_after: only later items; an id of another tenant reads as none", () => {
    const a = createTenant(store.db, clock, "A");
    const b = createTenant(store.db, clock, "B");
    const first = addNews(store.db, clock, a.tenant_id, { title: "1", body: "b", level: "info" });
    clock.advance(1);
    addNews(store.db, clock, a.tenant_id, { title: "2", body: "b", level: "critical" });
    const other = addNews(store.db, clock, b.tenant_id, { title: "B1", body: "b", level: "info" });
    expect(newsFor(store.db, clock, a.tenant_id, first.news_id).map((n) => n.title)).toEqual(["2"]);
    expect(newsFor(store.db, clock, a.tenant_id, other.news_id).map((n) => n.title)).toEqual(["1", "2"]);
    expect(newsFor(store.db, clock, b.tenant_id).map((n) => n.title)).toEqual(["B1"]);
  });
});
