// Tenants, their connector keys, their license and their news (contract §3). Plain functions over
// the store: used by the CLI, by connector authentication and by the device surface.
import { and, asc, count, desc, eq, gt, isNull, ne } from "drizzle-orm";
import type { Clock } from "../clock";
import { newId, randomBase62 } from "../ids";
import { secretHash } from "../store/secret-hash";
import type { Db } from "../store/db";
import { apiKeys, devices, news, tenants, type Environment } from "../store/schema";

export const ENVIRONMENTS: readonly Environment[] = ["live", "test"];
export const DEFAULT_PLAN = "standard";
export const DEFAULT_MAX_DEVICES = 5;
/** Random part of a connector key: contract §3 asks for at least 32 base62 characters. */
const KEY_RANDOM_CHARS = 40;
const NEWS_WINDOW_MS = 30 * 24 * 3600 * 1000;
const NEWS_MAX = 20;

export type NotFoundKind = "tenant" | "key" | "device" | "webhook" | "session";
const LIST_COMMAND: Record<NotFoundKind, string> = {
  tenant: "cuadra tenant list",
  key: "cuadra key list",
  device: "cuadra device list",
  webhook: "cuadra webhook list",
  session: "cuadra console sessions",
};

/** An unknown id the caller can act on; the CLI prints it, with the data folder, and exits 1. */
export class NotFoundError extends Error {
  constructor(
    readonly kind: NotFoundKind,
    readonly id: string,
  ) {
    super(`no ${kind} ${id}; see '${LIST_COMMAND[kind]}'`);
  }
}

export interface License {
  status: "active" | "suspended";
  reason: null | "suspended" | "expired";
  plan: string;
  max_devices: number;
  devices_in_use: number;
  expires_at: number | null;
}

type TenantRow = typeof tenants.$inferSelect;

export function getTenant(db: Db, tenantId: string): TenantRow {
  const row = db.select().from(tenants).where(eq(tenants.id, tenantId)).get();
  if (!row) throw new NotFoundError("tenant", tenantId);
  return row;
}

export function createTenant(db: Db, clock: Clock, name: string) {
  const now = clock.now();
  const tenantId = newId("ten");
  return db.transaction((tx) => {
    tx.insert(tenants).values({ id: tenantId, name, createdAt: now, updatedAt: now }).run();
    const live = insertKey(tx as unknown as Db, now, tenantId, "live");
    const test = insertKey(tx as unknown as Db, now, tenantId, "test");
    return { tenant_id: tenantId, name, keys: { live: live.key, test: test.key } };
  });
}

/** A shop's new name (`cuadra tenant rename`): what phones paired later, the console and the network announcement show. */
export function renameTenant(db: Db, clock: Clock, tenantId: string, name: string) {
  const old = getTenant(db, tenantId).name;
  db.update(tenants).set({ name, updatedAt: clock.now() }).where(eq(tenants.id, tenantId)).run();
  return { tenant_id: tenantId, name, previous_name: old };
}

export function listTenants(db: Db) {
  return db
    .select({ tenant_id: tenants.id, name: tenants.name, created_at: tenants.createdAt })
    .from(tenants)
    .orderBy(asc(tenants.createdAt), asc(tenants.id))
    .all();
}

// ---- connector keys


function insertKey(db: Db, now: number, tenantId: string, environment: Environment) {
  const key = `sk_${environment}_${randomBase62(KEY_RANDOM_CHARS)}`;
  const keyId = newId("key");
  db.insert(apiKeys)
    .values({
      id: keyId,
      tenantId,
      environment,
      keyHash: secretHash(db, key),
      prefix: key.slice(0, `sk_${environment}_`.length + 4),
      last4: key.slice(-4),
      createdAt: now,
    })
    .run();
  return { key_id: keyId, key, tenant_id: tenantId, environment };
}

export function createKey(db: Db, clock: Clock, tenantId: string, environment: Environment) {
  getTenant(db, tenantId);
  return insertKey(db, clock.now(), tenantId, environment);
}

export function listKeys(db: Db, tenantId: string) {
  getTenant(db, tenantId);
  return db
    .select({
      key_id: apiKeys.id,
      environment: apiKeys.environment,
      prefix: apiKeys.prefix,
      last4: apiKeys.last4,
      created_at: apiKeys.createdAt,
      revoked_at: apiKeys.revokedAt,
    })
    .from(apiKeys)
    .where(eq(apiKeys.tenantId, tenantId))
    .orderBy(asc(apiKeys.createdAt), asc(apiKeys.id))
    .all();
}

/** Revoking twice keeps the first revocation time. `tenantId` confines it to one shop (the console). */
export function revokeKey(db: Db, clock: Clock, keyId: string, tenantId?: string) {
  const row = db.select().from(apiKeys).where(eq(apiKeys.id, keyId)).get();
  if (!row || (tenantId !== undefined && row.tenantId !== tenantId)) throw new NotFoundError("key", keyId);
  if (row.revokedAt !== null) return { key_id: keyId, revoked_at: row.revokedAt };
  const now = clock.now();
  db.update(apiKeys).set({ revokedAt: now }).where(eq(apiKeys.id, keyId)).run();
  return { key_id: keyId, revoked_at: now };
}

/** The active key with this text, by its hash (an indexed lookup; the hash comparison is exact). */
export function findActiveKey(db: Db, key: string) {
  const row = db
    .select({ keyId: apiKeys.id, tenantId: apiKeys.tenantId, environment: apiKeys.environment })
    .from(apiKeys)
    .where(and(eq(apiKeys.keyHash, secretHash(db, key)), isNull(apiKeys.revokedAt)))
    .get();
  return row ?? null;
}

// ---- license

/** contract §3: suspended by hand, or read as suspended once past `expires_at`. */
export function licenseSuspension(status: "active" | "suspended", expiresAt: number | null, now: number): License["reason"] {
  if (status === "suspended") return "suspended";
  if (expiresAt !== null && now > expiresAt) return "expired";
  return null;
}

export function licenseOf(db: Db, clock: Clock, tenant: TenantRow): License {
  const inUse = db
    .select({ n: count() })
    .from(devices)
    .where(and(eq(devices.tenantId, tenant.id), ne(devices.status, "revoked")))
    .get()!.n;
  const reason = licenseSuspension(tenant.licenseStatus, tenant.licenseExpiresAt, clock.now());
  return {
    status: reason ? "suspended" : "active",
    reason,
    plan: tenant.licensePlan,
    max_devices: tenant.licenseMaxDevices,
    devices_in_use: inUse,
    expires_at: tenant.licenseExpiresAt,
  };
}

export const getLicense = (db: Db, clock: Clock, tenantId: string): License => licenseOf(db, clock, getTenant(db, tenantId));

export interface LicenseChange {
  status?: "active" | "suspended";
  plan?: string;
  maxDevices?: number;
  /** null clears the expiry. */
  expiresAt?: number | null;
}

export function setLicense(db: Db, clock: Clock, tenantId: string, change: LicenseChange): License {
  getTenant(db, tenantId);
  db.update(tenants)
    .set({
      ...(change.status !== undefined ? { licenseStatus: change.status } : {}),
      ...(change.plan !== undefined ? { licensePlan: change.plan } : {}),
      ...(change.maxDevices !== undefined ? { licenseMaxDevices: change.maxDevices } : {}),
      ...(change.expiresAt !== undefined ? { licenseExpiresAt: change.expiresAt } : {}),
      updatedAt: clock.now(),
    })
    .where(eq(tenants.id, tenantId))
    .run();
  return getLicense(db, clock, tenantId);
}

// ---- news

export type NewsLevel = "info" | "warning" | "critical";

export function addNews(db: Db, clock: Clock, tenantId: string, item: { title: string; body: string; level: NewsLevel }) {
  getTenant(db, tenantId);
  const id = newId("nws");
  const publishedAt = clock.now();
  db.insert(news).values({ id, tenantId, level: item.level, title: item.title, body: item.body, publishedAt }).run();
  return { news_id: id, published_at: publishedAt };
}

/**
 * contract §7: items published after `newsAfter` (an id the app already has), else from the last
 * 30 days; oldest first, at most 20. An id the tenant does not have reads as "none".
 */
export function newsFor(db: Db, clock: Clock, tenantId: string, newsAfter?: string) {
  const anchor = newsAfter
    ? db.select({ seq: news.seq }).from(news).where(and(eq(news.tenantId, tenantId), eq(news.id, newsAfter))).get()
    : undefined;
  const where = anchor
    ? and(eq(news.tenantId, tenantId), gt(news.seq, anchor.seq))
    : and(eq(news.tenantId, tenantId), gt(news.publishedAt, clock.now() - NEWS_WINDOW_MS));
  // After news_after: the next 20; without it: the newest 20. Either way returned oldest first.
  const rows = db
    .select({ id: news.id, level: news.level, title: news.title, body: news.body, published_at: news.publishedAt })
    .from(news)
    .where(where)
    .orderBy(anchor ? asc(news.seq) : desc(news.seq))
    .limit(NEWS_MAX)
    .all();
  return anchor ? rows : rows.reverse();
}
