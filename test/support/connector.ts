// Helpers for the connector and matching tests: payments through the real ingestion path, orders
// through the app's writer, and a few readers of the stored state.
import { ingestPayment } from "../../src/payments/ingest";
import { normalizePaymentEvent, type PaymentEvent } from "../../src/payments/model";
import type { Clock } from "../../src/clock";
import type { Store } from "../../src/store/db";
import type { Environment } from "../../src/store/schema";
import type { OrderInput } from "../../src/connector/orders.service";
import type { TestApp } from "./harness";

export interface Scope {
  tenantId: string;
  environment: Environment;
}

let counter = 0;
export const nextEventId = (): string => `evt-test-${++counter}-${Math.random().toString(36).slice(2, 8)}`;

export interface PaymentSpec {
  amount: number;
  occurredAt?: number;
  payerName?: string;
  securityCode?: string;
  reference?: string;
  source?: string;
  eventId?: string;
  deviceId?: string | null;
  currency?: string;
}

export function paymentEvent(spec: PaymentSpec, now: number): PaymentEvent {
  return normalizePaymentEvent({
    event_id: spec.eventId ?? nextEventId(),
    kind: "payment.received",
    occurred_at: spec.occurredAt ?? now,
    source: spec.source ?? "yape",
    amount: spec.amount,
    currency: spec.currency ?? "PEN",
    ...(spec.payerName !== undefined ? { payer_name: spec.payerName } : {}),
    ...(spec.securityCode !== undefined ? { security_code: spec.securityCode } : {}),
    ...(spec.reference !== undefined ? { reference: spec.reference } : {}),
  });
}

/**
 * A phone has events only after it was activated in its shop: a test shortcut for activation, so
 * that lookups through the scope's phones (manual matches find an event_id that way) see its events.
 */
export function ensurePhone(store: Store, clock: Clock, scope: Scope, deviceId: string): void {
  const row = store.sqlite
    .query<{ tenant_id: string; environment: string }, [string]>("SELECT tenant_id, environment FROM devices WHERE id = ?")
    .get(deviceId);
  if (row) {
    if (row.tenant_id !== scope.tenantId || row.environment !== scope.environment) {
      throw new Error(`test phone ${deviceId} belongs to another shop or environment; give this one another id`);
    }
    return;
  }
  store.sqlite.run(
    `INSERT INTO devices (id, tenant_id, environment, label, platform, app_version, os_version, secret_enc, status, created_at)
     VALUES (?, ?, ?, ?, 'android', 'test', 'test', 'v1.test.test', 'active', ?)`,
    [deviceId, scope.tenantId, scope.environment, deviceId, clock.now()],
  );
}

/** A payment through ingestion and the app's writer (the same path as a phone's event, from a phone of the scope). */
export async function pay(t: TestApp, scope: Scope, spec: PaymentSpec) {
  if (spec.deviceId) ensurePhone(t.store, t.clock, scope, spec.deviceId);
  const event = paymentEvent(spec, t.clock.now());
  const result = await ingestPayment(t, { ...scope, deviceId: spec.deviceId ?? null }, event);
  return { eventId: event.event_id, ...result, match: result.body.match as { status: string; order_id: string | null } };
}

/** An order sync through the app's writer, as POST /connector/v1/orders makes it. */
export function sync(t: TestApp, scope: Scope, orders: OrderInput[]) {
  return t.writer.run("syncOrders", { scope: { tenantId: scope.tenantId, environment: scope.environment }, orders, now: t.clock.now() });
}

export const order = (id: string, amount: number, extra: Partial<OrderInput> = {}): OrderInput => ({ id, amount, currency: "PEN", ...extra });

export function eventRow(store: Store, eventId: string) {
  return store.sqlite
    .query<{ seq: number; match_status: string; order_id: string | null; duplicate_of: string | null }, [string]>(
      "SELECT seq, match_status, order_id, duplicate_of FROM events WHERE event_id = ?",
    )
    .get(eventId);
}

export function orderRow(store: Store, scope: Scope, id: string) {
  return store.sqlite
    .query<{ status: string; expected_amount: number; match_id: string | null; updated_at: number }, [string, string, string]>(
      "SELECT status, expected_amount, match_id, updated_at FROM orders WHERE tenant_id = ? AND environment = ? AND id = ?",
    )
    .get(scope.tenantId, scope.environment, id);
}

export function matchCount(store: Store): number {
  return store.sqlite.query<{ n: number }, []>("SELECT count(*) AS n FROM matches").get()!.n;
}

export const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
