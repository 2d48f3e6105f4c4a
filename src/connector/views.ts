// How stored rows read on the connector surface (contract §9–§12).
import { effectiveStatus } from "../matching/engine";
import type { EventRow, MatchRow, OrderRow } from "../matching/store";
import type { Cursors } from "./cursor";

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
