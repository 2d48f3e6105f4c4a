// Devices seen from the command line: list and revoke. (Activation, events and heartbeat build on
// this module.)
import { and, asc, eq } from "drizzle-orm";
import type { Clock } from "../clock";
import type { Db } from "../store/db";
import { devices } from "../store/schema";
import { getTenant, NotFoundError } from "../tenants/service";
import { ONLINE_WINDOW_MS } from "./model";

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

/** Revoking twice is harmless; the device's next request gets 403 device_revoked. */
export function revokeDevice(db: Db, clock: Clock, deviceId: string) {
  const row = db.select({ status: devices.status }).from(devices).where(eq(devices.id, deviceId)).get();
  if (!row) throw new NotFoundError(`no device ${deviceId}; see 'cuadra device list --tenant ID'`);
  if (row.status !== "revoked") {
    db.update(devices)
      .set({ status: "revoked", revokedAt: clock.now() })
      .where(and(eq(devices.id, deviceId), eq(devices.status, "active")))
      .run();
  }
  return { device_id: deviceId, status: "revoked" as const };
}

/** contract §5: online while the newest signed heartbeat timestamp is within three intervals of now. */
export function isOnline(lastHeartbeatAt: number | null, now: number): boolean {
  return lastHeartbeatAt !== null && now - lastHeartbeatAt <= ONLINE_WINDOW_MS;
}
