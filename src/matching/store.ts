// Storage for the matching engine: the few reads and writes matching needs, as prepared statements
// (hot path: every payment event runs them). Each statement narrows by an index:
// orders_pending_candidates_idx (tenant, environment, expected_amount, …; pending orders only) for
// candidates and events_hour_amount_idx (tenant, environment, hour of occurred_at, amount, …) for
// waiting payments; test/matching-service.test.ts checks the query plans.
import type { Database } from "bun:sqlite";
import { and, eq, inArray, lt, sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/bun-sqlite";
import { perConnection } from "../store/db";
import * as schema from "../store/schema";
import { hourOf, OCCURRED_HOUR, PENDING_ORDER, type Environment } from "../store/schema";
import { EARLY_PAYMENT_MS, type NewPaymentFacts, type OrderFacts, type PaymentFacts } from "./engine";

const { orders, events, matches } = schema;
const p = sql.placeholder;

export interface Scope {
  tenantId: string;
  environment: Environment;
}

export type EventRow = typeof events.$inferSelect;
export type OrderRow = typeof orders.$inferSelect;
export type MatchRow = typeof matches.$inferSelect;
export type WaitingPayment = PaymentFacts & { matchStatus: EventRow["matchStatus"] };

/** Payment statuses that wait for an order (contract §10); duplicates never match. */
export const WAITING: EventRow["matchStatus"][] = ["unmatched", "ambiguous"];


type WaitingParams = { tenantId: string; environment: Environment; amount: number; from: number; to: number; fromHour: number; toHour: number };

type CandidateParams = {
  tenantId: string;
  environment: Environment;
  amount: number;
  notExpiredBefore: number;
  createdAtMost: number;
};

/** Statements written as SQL text (exported for the query-plan tests in test/matching-service.test.ts). */
export const MATCHING_SQL = {
  // orders_pending_candidates_idx holds every column read here: no order row is read.
  candidateOrders: `SELECT id, expected_amount AS expectedAmount, currency, status, created_at AS createdAt, expires_at AS expiresAt,
      customer_name AS customerName, security_code AS securityCode
    FROM orders
    WHERE tenant_id = $tenantId AND environment = $environment AND status = 'pending' AND expected_amount = $amount
      AND expires_at >= $notExpiredBefore AND created_at <= $createdAtMost`,
  // events_hour_amount_idx: one seek per hour of the order's window (hours, a list of OCCURRED_HOUR
  // values made by the recursive CTE), each reading only the amount's entries in that hour.
  waitingPayments: `WITH RECURSIVE hours(h) AS (SELECT $fromHour UNION ALL SELECT h + 1 FROM hours WHERE h < $toHour)
    SELECT seq, amount, currency, occurred_at AS occurredAt, payer_name AS payerName, security_code AS securityCode,
      match_status AS matchStatus
    FROM events
    WHERE tenant_id = $tenantId AND environment = $environment AND ${OCCURRED_HOUR} IN hours AND amount = $amount
      AND occurred_at BETWEEN $from AND $to AND match_status IN (${WAITING.map((w) => `'${w}'`).join(", ")})`,
  eventHours: `SELECT (SELECT min(${OCCURRED_HOUR}) FROM events WHERE tenant_id = $tenantId AND environment = $environment) AS first,
      (SELECT max(${OCCURRED_HOUR}) FROM events WHERE tenant_id = $tenantId AND environment = $environment) AS last`,
  // The status changes of a re-evaluation, all payments of one status in one statement: thousands
  // can change at once (an order synced late, on a common amount). The time is in the rows (each
  // one rewritten and moved in two indexes), not in the calls: per row it measured the same.
  setWaitingStatus: `UPDATE events SET match_status = $status
    WHERE seq IN (SELECT value FROM json_each($seqs)) AND match_status IN (${WAITING.map((w) => `'${w}'`).join(", ")})`,
  // Writing a match (raw for the same reason: a matched payment paid more for drizzle than for SQLite).
  markOrderMatched: `UPDATE orders SET status = 'matched', match_id = $matchId, updated_at = $now
    WHERE tenant_id = $tenantId AND environment = $environment AND id = $id AND status IN ('pending', 'expired')`,
  insertMatch: `INSERT INTO matches (id, tenant_id, environment, order_id, event_seq, event_id, device_id, amount, currency, source,
      payer_name, security_code, reference, occurred_at, matched_at, method)
    VALUES ($id, $tenantId, $environment, $orderId, $eventSeq, $eventId, $deviceId, $amount, $currency, $source,
      $payerName, $securityCode, $reference, $occurredAt, $matchedAt, $method)`,
} as const;

function prepareAll(client: Database) {
  const db = drizzle(client, { schema });
  return {
    /**
     * Pending orders with this expected amount whose window may hold `occurredAt`, not expired at
     * `now`. Raw SQL on bun:sqlite: it runs for nearly every payment event, and drizzle's row
     * mapping cost as much as the query itself.
     */
    candidateOrders: client.prepare<OrderFacts, [CandidateParams]>(MATCHING_SQL.candidateOrders),
    /** Waiting payments of an amount that occurred inside [from, to], in the hours fromHour…toHour. */
    waitingPayments: client.prepare<WaitingPayment, [WaitingParams]>(MATCHING_SQL.waitingPayments),
    /** The first and last OCCURRED_HOUR of a scope's events (two seeks): bounds an order's hours. */
    eventHours: client.prepare<{ first: number | null; last: number | null }, [{ tenantId: string; environment: Environment }]>(MATCHING_SQL.eventHours),
    eventBySeq: db.select().from(events).where(eq(events.seq, p("seq"))).prepare(),
    orderByKey: db
      .select()
      .from(orders)
      .where(and(eq(orders.tenantId, p("tenantId")), eq(orders.environment, p("environment")), eq(orders.id, p("id"))))
      .prepare(),
    /** The match row; its seq is the connection's last insert rowid. */
    insertMatch: client.prepare<never, [Record<string, string | number | null>]>(MATCHING_SQL.insertMatch),
    /** Only a pending or expired order can be matched; the row count tells whether it was. */
    markOrderMatched: client.prepare<never, [Record<string, string | number>]>(MATCHING_SQL.markOrderMatched),
    /** Only a waiting event can be matched. */
    markEventMatched: db
      .update(events)
      .set({ matchStatus: "matched", orderId: sql`${p("orderId")}` })
      .where(and(eq(events.seq, p("seq")), inArray(events.matchStatus, WAITING)))
      .prepare(),
    /** Sets a waiting status on many waiting events at once ($seqs: a JSON array of seqs). */
    setWaitingStatus: client.prepare<never, [{ status: WaitingPayment["matchStatus"]; seqs: string }]>(MATCHING_SQL.setWaitingStatus),
    /** Pending orders whose expiry has passed and that the sweeper has not handled yet (orders_pending_expiry_idx). */
    expiredPending: db
      .select()
      .from(orders)
      .where(and(PENDING_ORDER, lt(orders.expiresAt, p("now"))))
      .limit(p("limit"))
      .prepare(),
    markExpired: db
      .update(orders)
      .set({ status: "expired" })
      .where(
        and(
          eq(orders.tenantId, p("tenantId")),
          eq(orders.environment, p("environment")),
          eq(orders.id, p("id")),
          eq(orders.status, "pending"),
          lt(orders.expiresAt, p("now")),
        ),
      )
      .prepare(),
  };
}

export type MatchingStatements = ReturnType<typeof prepareAll>;

/** Prepared once per connection; usable inside any transaction on that connection. */
export const matchingStatements = perConnection(prepareAll);

/** Pending orders that could take a payment of `payment.amount` that occurred at `payment.occurredAt`. */
export function candidateOrdersFor(s: MatchingStatements, scope: Scope, payment: NewPaymentFacts, now: number): OrderFacts[] {
  return s.candidateOrders.all({
    tenantId: scope.tenantId,
    environment: scope.environment,
    amount: payment.amount,
    notExpiredBefore: Math.max(now, payment.occurredAt),
    createdAtMost: payment.occurredAt + EARLY_PAYMENT_MS,
  });
}

/** Every pending order with this expected amount, not expired at `now` (chooseOrder checks each payment's window). */
export function pendingOrdersOf(s: MatchingStatements, scope: Scope, amount: number, now: number): OrderFacts[] {
  return s.candidateOrders.all({
    tenantId: scope.tenantId,
    environment: scope.environment,
    amount,
    notExpiredBefore: now,
    createdAtMost: Number.MAX_SAFE_INTEGER,
  });
}

/**
 * Orders stored pending (reading pending, or expired and not yet swept) with this expected amount
 * whose window holds the payment's occurred_at, expired or not: what a person is shown first for a
 * waiting payment (contract §19). No security-code filter: a person decides.
 */
export function pendingOrdersAround(s: MatchingStatements, scope: Scope, payment: Pick<NewPaymentFacts, "amount" | "occurredAt">): OrderFacts[] {
  return s.candidateOrders.all({
    tenantId: scope.tenantId,
    environment: scope.environment,
    amount: payment.amount,
    notExpiredBefore: payment.occurredAt,
    createdAtMost: payment.occurredAt + EARLY_PAYMENT_MS,
  });
}

/** Waiting payments that could concern an order with this amount and window. */
export function waitingPaymentsFor(
  s: MatchingStatements,
  scope: Scope,
  order: Pick<OrderFacts, "expectedAmount" | "createdAt" | "expiresAt">,
): WaitingPayment[] {
  const from = order.createdAt - EARLY_PAYMENT_MS;
  const to = order.expiresAt;
  // Only the hours between the scope's first and last event: a window that ends in a year costs no
  // more seeks than the events stored so far span. Each hour in between is one seek, even an hour
  // without events (about 1 ms per 1 000 hours): an order created years back costs tens of ms here.
  const span = s.eventHours.get({ tenantId: scope.tenantId, environment: scope.environment });
  if (!span || span.first === null || span.last === null) return [];
  const fromHour = Math.max(hourOf(Math.max(from, 0)), span.first);
  const toHour = Math.min(hourOf(Math.max(to, 0)), span.last);
  if (fromHour > toHour) return [];
  return s.waitingPayments.all({ tenantId: scope.tenantId, environment: scope.environment, amount: order.expectedAmount, from, to, fromHour, toHour });
}

/** Rows changed by a prepared UPDATE (bun:sqlite returns them; drizzle's types say void). */
export const changes = (result: unknown): number => (result as { changes: number }).changes;
