// POST /device/v1/heartbeat (contract §7): the phone reports its health and receives its license,
// config and news.
import { Elysia } from "elysia";
import type { AppDeps } from "../deps";
import { describe } from "../http/openapi";
import { validator } from "../http/validation";
import { withoutNulls } from "../payments/model";
import { getLicense, newsFor } from "../tenants/service";
import { deviceAuthOf, signedJsonBody } from "./auth";
import { DEVICE_CONFIG, HeartbeatRequestSchema, HeartbeatResponseSchema } from "./model";
import { DEVICE_ERRORS, SIGNATURE_PARAMETERS } from "./openapi";

const checkBody = validator(HeartbeatRequestSchema);

export const heartbeatRoutes = (deps: AppDeps) =>
  new Elysia().post(
    "/heartbeat",
    async ({ request, body }) => {
      const auth = deviceAuthOf(request);
      const hb = checkBody(withoutNulls(body, 1));
      await deps.writer.run("recordHeartbeat", { now: deps.clock.now(), deviceId: auth.deviceId, signedAt: auth.timestamp, report: hb });
      return Response.json({
        server_time: deps.clock.now(),
        device: { device_id: auth.deviceId, label: auth.label, status: "active" },
        license: getLicense(deps.store.db, deps.clock, auth.tenantId),
        config: DEVICE_CONFIG,
        news: newsFor(deps.store.db, deps.clock, auth.tenantId, hb.news_after ?? undefined),
      });
    },
    {
      parse: signedJsonBody(deps),
      ...describe({
        tag: "Device",
        summary: "Report the phone's health; receive license, config and news",
        operationId: "sendHeartbeat",
        description: [
          "Signed (see the Device section: Signing device requests). Send one every `config.heartbeat_interval_ms`. A phone is *online* while its newest signed",
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
