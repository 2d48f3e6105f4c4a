// How stored rows read on the connector surface (contract §9–§12).
import { effectiveStatus } from "../matching/engine";
import type { EventRow, MatchRow, OrderRow } from "../matching/store";
import { isOnline } from "../device/model";
import type { devices } from "../store/schema";
import type { Cursors } from "./cursor";
import type { NotificationCounts } from "../notifications/views";

/** A Match; its cursor is made by `cursors` for the match's own tenant and environment. */
export function matchView(m: MatchRow, cursors: Cursors) {
  return {
    id: m.id,
    cursor: cursors.encode("match", m, m.seq),
    order_id: m.orderId,
    event_id: m.eventId,
    device_id: m.deviceId,
    amount: m.amount,
    currency: m.currency,
    source: m.source,
    payer_name: m.payerName,
    security_code: m.securityCode,
    reference: m.reference,
    occurred_at: m.occurredAt,
    matched_at: m.matchedAt,
    method: m.method,
  };
}

export type MatchView = ReturnType<typeof matchView>;

export function orderView(o: OrderRow, match: MatchRow | null, now: number, cursors: Cursors) {
  return {
    id: o.id,
    amount: o.amount,
    expected_amount: o.expectedAmount,
    currency: o.currency,
    status: effectiveStatus(o, now),
    created_at: o.createdAt,
    expires_at: o.expiresAt,
    customer_name: o.customerName,
    security_code: o.securityCode,
    unique_amount: o.uniqueAmount,
    metadata: o.metadata === null ? null : (JSON.parse(o.metadata) as Record<string, unknown>),
    match: match ? matchView(match, cursors) : null,
    updated_at: o.updatedAt,
  };
}

export type OrderView = ReturnType<typeof orderView>;

export function eventView(e: EventRow) {
  return {
    event_id: e.eventId,
    device_id: e.deviceId,
    source: e.source,
    amount: e.amount,
    currency: e.currency,
    payer_name: e.payerName,
    security_code: e.securityCode,
    reference: e.reference,
    occurred_at: e.occurredAt,
    received_at: e.receivedAt,
    match_status: e.matchStatus,
    order_id: e.orderId,
    duplicate_of: e.duplicateOf,
  };
}

const HEALTH_FIELDS = [
  "battery_level",
  "charging",
  "notification_access",
  "listener_connected",
  "network",
  "app_version",
  "os_version",
  "queue_depth",
  "last_notification_at",
  "reported_at",
] as const;

function healthOf(json: string | null): Record<string, unknown> {
  if (!json) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return {};
  }
  if (typeof parsed !== "object" || parsed === null) return {};
  const out: Record<string, unknown> = {};
  for (const k of HEALTH_FIELDS) if ((parsed as Record<string, unknown>)[k] !== undefined) out[k] = (parsed as Record<string, unknown>)[k];
  return out;
}

/**
 * A phone as §12 `GET /devices` shows it (and the `device.online`/`device.offline` webhooks), with
 * its notifications of the last 7 days (§16, notifications/views.ts).
 */
export function deviceView(d: typeof devices.$inferSelect, now: number, notifications: NotificationCounts) {
  const health = healthOf(d.health);
  return {
    device_id: d.id,
    label: d.label,
    platform: d.platform,
    app_version: typeof health.app_version === "string" ? health.app_version : d.appVersion,
    os_version: typeof health.os_version === "string" ? health.os_version : d.osVersion,
    status: d.status,
    online: d.status === "active" && isOnline(d.lastHeartbeatAt, now),
    last_seen_at: d.lastSeenAt,
    last_heartbeat_at: d.lastHeartbeatAt,
    health,
    notifications,
  };
}
export type DeviceView = ReturnType<typeof deviceView>;
