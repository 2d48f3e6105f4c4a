// POST /device/v1/heartbeat (contract §7): the phone reports its health and receives its license,
// config and news.
import type { Static } from "@sinclair/typebox";
import { Elysia } from "elysia";
import type { AppDeps } from "../app";
import type { Clock } from "../clock";
import { describe } from "../http/openapi";
import { validator } from "../http/validation";
import { withoutNulls } from "../payments/model";
import type { Store } from "../store/db";
import { getLicense, newsFor } from "../tenants/service";
import { deviceAuthOf, signedJsonBody, type DeviceAuth } from "./auth";
import { DEVICE_CONFIG, HeartbeatRequestSchema, HeartbeatResponseSchema } from "./model";
import { DEVICE_ERRORS, SIGNATURE_PARAMETERS } from "./openapi";

export type Heartbeat = Static<typeof HeartbeatRequestSchema>;

/** The health fields kept on the device: everything but news_after, with the signed time of the report. */
export function healthSnapshot(hb: Heartbeat, signedAt: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(hb)) if (k !== "news_after" && v !== undefined) out[k] = v;
  out.reported_at = signedAt;
  return out;
}

/**
 * Keeps the latest report. "Latest" is by the signed X-Timestamp: an older request arriving late
 * (or replayed) updates neither the snapshot nor last_heartbeat_at, which only ever grows, so it
 * cannot make a silent phone look online (contract §5). last_seen_at is the server's time.
 */
export function recordHeartbeat(store: Store, clock: Clock, auth: DeviceAuth, hb: Heartbeat): void {
  const newer = `(last_heartbeat_at IS NULL OR ?1 >= last_heartbeat_at)`;
  store.sqlite
    .query(
      `UPDATE devices SET
         health = CASE WHEN ${newer} THEN ?2 ELSE health END,
         app_version = CASE WHEN ${newer} AND ?3 IS NOT NULL THEN ?3 ELSE app_version END,
         os_version = CASE WHEN ${newer} AND ?4 IS NOT NULL THEN ?4 ELSE os_version END,
         last_heartbeat_at = MAX(COALESCE(last_heartbeat_at, ?1), ?1),
         last_seen_at = ?5
       WHERE id = ?6`,
    )
    .run(auth.timestamp, JSON.stringify(healthSnapshot(hb, auth.timestamp)), hb.app_version || null, hb.os_version || null, clock.now(), auth.deviceId);
}

const checkBody = validator(HeartbeatRequestSchema);

export const heartbeatRoutes = (deps: AppDeps) =>
  new Elysia().post(
    "/heartbeat",
    ({ request, body }) => {
      const auth = deviceAuthOf(request);
      const hb = checkBody(withoutNulls(body, 1));
      recordHeartbeat(deps.store, deps.clock, auth, hb);
      return Response.json({
        server_time: deps.clock.now(),
        device: { device_id: auth.deviceId, label: auth.label, status: "active" },
        license: getLicense(deps.store.db, deps.clock, auth.tenantId),
        config: DEVICE_CONFIG,
        news: newsFor(deps.store.db, deps.clock, auth.tenantId, hb.news_after),
      });
    },
    {
      parse: signedJsonBody(deps),
      ...describe({
        tag: "Device",
        summary: "Report the phone's health; receive license, config and news",
        operationId: "sendHeartbeat",
        description: [
          "Signed (contract §5). Send one every `config.heartbeat_interval_ms`. A phone is *online* while its newest signed",
          "heartbeat timestamp is within three intervals of now; the latest report is shown to the shop's software.",
          "Repeating a heartbeat is harmless: an older one never replaces a newer report.",
        ].join(" "),
        body: HeartbeatRequestSchema,
        bodyExample: {
          battery_level: 87,
          charging: false,
          notification_access: true,
          listener_connected: true,
          network: "wifi",
          app_version: "1.4.0",
          os_version: "14",
          queue_depth: 0,
          last_notification_at: 1795262395000,
          news_after: "nws_7Hq2Lx9VbN4cR1tY8kPw",
        },
        parameters: SIGNATURE_PARAMETERS,
        success: {
          status: 200,
          description: "Recorded",
          schema: HeartbeatResponseSchema,
          example: {
            server_time: 1795262400000,
            device: { device_id: "dev_3VwQ8fK2pL9xR4tN7mZc", label: "Caja 1", status: "active" },
            license: { status: "active", reason: null, plan: "standard", max_devices: 5, devices_in_use: 2, expires_at: null },
            config: DEVICE_CONFIG,
            news: [{ id: "nws_9Tz4Kp2WqL7mX3vB8nRd", level: "info", title: "Nueva versión", body: "Actualiza la app a 1.5.0", published_at: 1795262000000 }],
          },
        },
        errors: [["invalid_request", { errors: [{ field: "/battery_level", message: "Expected number to be less or equal to 100" }] }], ...DEVICE_ERRORS],
        security: "device",
      }),
    },
  );
