// Devices: the command line's list and revoke, the heartbeat's write, and the online rule.
import type { Static } from "@sinclair/typebox";
import { and, asc, eq, isNull, lt, ne, or } from "drizzle-orm";
import type { Clock } from "../clock";
import { rawClient, type Db } from "../store/db";
import { devices } from "../store/schema";
import { getTenant, NotFoundError } from "../tenants/service";
import { deviceView } from "../connector/views";
import { deviceNotificationCounts } from "../notifications/views";
import { queueWebhook } from "../webhooks/outbox";
import { isOnline, ONLINE_WINDOW_MS, type HeartbeatRequestSchema } from "./model";

export type Heartbeat = Static<typeof HeartbeatRequestSchema>;

/** The health fields kept on the device: everything but news_after, with the signed time of the report. */
export function healthSnapshot(hb: Heartbeat, signedAt: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(hb)) if (k !== "news_after" && v !== undefined) out[k] = v;
  out.reported_at = signedAt;
  return out;
}

export interface HeartbeatReport {
  now: number;
  deviceId: string;
  /** The request's signed X-Timestamp. */
  signedAt: number;
  report: Heartbeat;
}

/**
 * Keeps the latest report (contract §7). "Latest" is by the signed X-Timestamp: an older request
 * arriving late (or replayed) updates neither the snapshot nor last_heartbeat_at, which only ever
 * grows, so it cannot make a silent phone look online (§5). last_seen_at is the server's time.
 */
export function recordHeartbeat(tx: Db, { now, deviceId, signedAt, report }: HeartbeatReport): void {
  const newer = `(last_heartbeat_at IS NULL OR ?1 >= last_heartbeat_at)`;
  rawClient(tx)
    .query(
      `UPDATE devices SET
         health = CASE WHEN ${newer} THEN ?2 ELSE health END,
         app_version = CASE WHEN ${newer} AND ?3 IS NOT NULL THEN ?3 ELSE app_version END,
         os_version = CASE WHEN ${newer} AND ?4 IS NOT NULL THEN ?4 ELSE os_version END,
         last_heartbeat_at = MAX(COALESCE(last_heartbeat_at, ?1), ?1),
         last_seen_at = ?5
       WHERE id = ?6`,
    )
    .run(signedAt, JSON.stringify(healthSnapshot(report, signedAt)), report.app_version || null, report.os_version || null, now, deviceId);
  // contract §15: a phone that webhooks last reported offline (or never reported) is online again.
  const d = tx.select().from(devices).where(eq(devices.id, deviceId)).get();
  if (d && d.onlineReported === 0 && d.status === "active" && isOnline(d.lastHeartbeatAt, now)) {
    tx.update(devices).set({ onlineReported: 1 }).where(eq(devices.id, deviceId)).run();
    queueWebhook(tx, d, "device.online", () => deviceView(d, now, deviceNotificationCounts(tx, d, now)), now);
  }
}

/** Phones reported offline per step of the liveness watch. */
export const OFFLINE_BATCH = 200;

/** Phones that webhooks last reported online and that no longer are (§5), or were revoked. */
const noLongerOnline = (now: number) =>
  and(
    eq(devices.onlineReported, 1),
    or(ne(devices.status, "active"), isNull(devices.lastHeartbeatAt), lt(devices.lastHeartbeatAt, now - ONLINE_WINDOW_MS)),
  );

/** A read, so that serve's liveness watch hands the writer no work when nothing changed. */
export function offlineDue(db: Db, now: number): boolean {
  return db.select({ id: devices.id }).from(devices).where(noLongerOnline(now)).limit(1).all().length > 0;
}

/**
 * contract §15: `device.offline` for each phone that stopped being online since it was reported
 * online. serve's liveness watch runs it every few seconds, so the message follows the moment the
 * phone stops reading as online by less than 30 s. Returns how many (at most OFFLINE_BATCH).
 */
export function reportOfflineDevices(tx: Db, now: number): number {
  const gone = tx.select().from(devices).where(noLongerOnline(now)).limit(OFFLINE_BATCH).all();
  for (const d of gone) {
    tx.update(devices).set({ onlineReported: 0 }).where(eq(devices.id, d.id)).run();
    queueWebhook(tx, d, "device.offline", () => deviceView(d, now, deviceNotificationCounts(tx, d, now)), now);
  }
  return gone.length;
}

export function listDevices(db: Db, tenantId: string) {
  getTenant(db, tenantId);
  return db
    .select({
      device_id: devices.id,
      label: devices.label,
      platform: devices.platform,
      environment: devices.environment,
      status: devices.status,
      last_seen_at: devices.lastSeenAt,
    })
    .from(devices)
    .where(eq(devices.tenantId, tenantId))
    .orderBy(asc(devices.createdAt), asc(devices.id))
    .all();
}

/**
 * Revoking twice is harmless; the device's next request gets 403 device_revoked. `scope` confines
 * it to one shop and environment (the console).
 */
export function revokeDevice(db: Db, clock: Clock, deviceId: string, scope?: { tenantId: string; environment: string }) {
  const row = db.select({ status: devices.status, tenantId: devices.tenantId, environment: devices.environment }).from(devices).where(eq(devices.id, deviceId)).get();
  if (!row || (scope && (row.tenantId !== scope.tenantId || row.environment !== scope.environment))) {
    throw new NotFoundError("device", deviceId);
  }
  if (row.status !== "revoked") {
    db.update(devices)
      .set({ status: "revoked", revokedAt: clock.now() })
      .where(and(eq(devices.id, deviceId), eq(devices.status, "active")))
      .run();
  }
  return { device_id: deviceId, status: "revoked" as const };
}
