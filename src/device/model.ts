// Schemas of the device surface (contract §4, §5, §7) and the config sent to phones.
import { BODY_LIMITS } from "../http/body";
import type { TSchema } from "@sinclair/typebox";
import { EpochMs, Int, LicenseSchema, named, Nullable, OrNull as NullOr, T } from "../http/schemas";
import { MAX_CLOCK_SKEW_MS } from "./signing";

/** contract §4: sent on activation and with every heartbeat answer. */
export const DEVICE_CONFIG = {
  heartbeat_interval_ms: 60_000,
  max_clock_skew_ms: MAX_CLOCK_SKEW_MS,
  max_event_bytes: BODY_LIMITS.device,
} as const;

/** contract §5: a device is online while its newest signed heartbeat is this recent. */
export const ONLINE_WINDOW_MS = 3 * DEVICE_CONFIG.heartbeat_interval_ms;

/** contract §5: online while the newest signed heartbeat timestamp is within three intervals of now. */
export function isOnline(lastHeartbeatAt: number | null, now: number): boolean {
  return lastHeartbeatAt !== null && now - lastHeartbeatAt <= ONLINE_WINDOW_MS;
}

export const DeviceConfigSchema = T.Object(
  {
    heartbeat_interval_ms: T.Integer({ examples: [60000] }),
    max_clock_skew_ms: T.Integer({ examples: [300000] }),
    max_event_bytes: T.Integer({ examples: [65536] }),
  },
  { additionalProperties: true, description: "More keys may be added; ignore the ones you do not know" },
);

const Text = (maxLength: number, description: string, examples: string[]) => T.String({ minLength: 1, maxLength, description, examples });

export const ActivationRequestSchema = T.Object({
  activation_code: T.String({
    description:
      "12 letters of `BCDFGHJKLMNPQRSTVWXZ`, shown as `WDJB-MJHT-KXQP`. Case-insensitive; spaces and hyphens anywhere are ignored.",
    // What the server accepts (codes.ts normalizeCode), said as a pattern; refusals keep their own message.
    pattern: "^[\\s-]*([BCDFGHJKLMNPQRSTVWXZbcdfghjklmnpqrstvwxz][\\s-]*){12}$",
    examples: ["WDJB-MJHT-KXQP"],
  }),
  device_label: Text(64, "A name for the phone, shown to the shop", ["Caja 1"]),
  app_version: Text(32, "Version of the Cuadra app", ["1.4.0"]),
  platform: T.Union([T.Literal("android"), T.Literal("ios")]),
  os_version: Text(32, "Version of the phone's operating system", ["14"]),
});

export const ActivationResponseSchema = T.Object({
  device_id: T.String({ description: "Send it in `X-Device-Id` from now on", examples: ["dev_3VwQ8fK2pL9xR4tN7mZc"] }),
  secret: T.String({
    description: "At least 32 random bytes as base64url text: the HMAC key that signs every request (/docs, Device section). Returned in this response only; keep it safe.",
  }),
  tenant_name: T.String(),
  environment: T.Union([T.Literal("live"), T.Literal("test")]),
  api_base_url: T.String({ description: "Absolute URL ending in `/device/v1`", examples: ["https://192.168.1.20:8443/device/v1"] }),
  tls_fingerprint: NullOr(
    T.String({ pattern: "^[0-9a-f]{64}$", examples: ["bd5d8d31c0a2f7e94b1d6c3a8e5f2b7d9c4e1a6f3b8d2c7e5a9f1b4d6c8e2a09"] }),
    "SHA-256 of the box's TLS certificate, lower-case hex without separators (contract §17); `null` when the box serves plain HTTP. Pin it: talk to the box only over TLS connections whose certificate has this fingerprint, whatever address or name it is reached by.",
  ),
  license: LicenseSchema,
  server_time: EpochMs("Server time; use it to measure the phone's clock offset"),
  config: DeviceConfigSchema,
});

export const TimeResponseSchema = T.Object({ server_time: EpochMs("Server time") });

/**
 * contract §7 calls the heartbeat's text fields only "strings": any string is accepted up to this
 * generous bound, which keeps the stored report small (the body itself is capped at 64 KiB).
 */
export const HEARTBEAT_TEXT_MAX = 256;
const HeartbeatText = (description: string, examples: string[]) =>
  T.String({ maxLength: HEARTBEAT_TEXT_MAX, description: `${description}; any string of at most ${HEARTBEAT_TEXT_MAX} characters`, examples });

/** contract §7: every heartbeat field is optional, and `null` is the same as leaving it out. */
const OrNull = <S extends TSchema>(s: S) => T.Optional(Nullable(s));

export const HeartbeatRequestSchema = T.Object(
  {
    battery_level: OrNull(T.Number({ minimum: 0, maximum: 100, description: "Percent, 0–100", examples: [87] })),
    charging: OrNull(T.Boolean()),
    notification_access: OrNull(T.Boolean({ description: "Whether the app may read notifications" })),
    listener_connected: OrNull(T.Boolean({ description: "Whether the notification listener is running" })),
    network: OrNull(HeartbeatText("The phone's network, e.g. `wifi`, `mobile` or the name of the Wi-Fi network", ["wifi"])),
    app_version: OrNull(HeartbeatText("Version of the Cuadra app (an empty string keeps the one on record)", ["1.4.0"])),
    os_version: OrNull(HeartbeatText("Version of the phone's operating system (an empty string keeps the one on record)", ["14"])),
    queue_depth: OrNull(Int({ minimum: 0, description: "Events waiting on the phone", examples: [0] })),
    last_notification_at: OrNull(EpochMs("When the app last saw a wallet notification")),
    news_after: OrNull(HeartbeatText("Id of the newest news item the app already has", ["nws_7Hq2Lx9VbN4cR1tY8kPw"])),
  },
  { description: "All fields optional; an empty body is a valid heartbeat. `null` reads as absent; unknown fields are ignored." },
);

export const NewsItemSchema = T.Object({
  id: T.String(),
  level: T.Union([T.Literal("info"), T.Literal("warning"), T.Literal("critical")]),
  title: T.String(),
  body: T.String(),
  published_at: EpochMs("When it was published"),
});

export const HeartbeatResponseSchema = T.Object({
  server_time: EpochMs("Server time"),
  device: T.Object({ device_id: T.String(), label: T.String(), status: T.Literal("active", { description: "Always `active`: a revoked phone gets 403 device_revoked instead" }) }),
  license: LicenseSchema,
  config: DeviceConfigSchema,
  news: T.Array(NewsItemSchema, {
    description: "Items published after `news_after` (without it: the last 30 days), oldest first, at most 20",
  }),
});

named({
  DeviceConfig: DeviceConfigSchema,
  ActivationRequest: ActivationRequestSchema,
  Activation: ActivationResponseSchema,
  ServerTime: TimeResponseSchema,
  HeartbeatRequest: HeartbeatRequestSchema,
  NewsItem: NewsItemSchema,
  HeartbeatResponse: HeartbeatResponseSchema,
});
