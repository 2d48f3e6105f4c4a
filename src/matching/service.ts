// Matching against the store (contract §10): the engine's decisions (engine.ts) applied to the
// database. Each function runs inside the caller's transaction, so a match (the match row, the
// order and the event) is written all at once or not at all; the unique indexes on matches
// (one per order, one per event) are the last line of defence.
//
// Entry points:
// - matchNewEvent: event ingestion, inside the transaction that stored a non-duplicate event.
// - reevaluateWaiting: after orders were created, re-synced, cancelled or expired.
// - recordMatch: the one way a match is written (automatic or manual).
// - sweepExpiredOrders: periodic; marks expired orders and re-evaluates what waited on them.
import { newTimeOrderedId } from "../ids";
import type { Db, Store } from "../store/db";
import { chooseOrder, settleWaitingPayment, type OrderFacts, type PaymentFacts, type Settlement } from "./engine";
import {
  candidateOrdersFor,
  changes,
  paymentFactsOf,
  statements,
  waitingPaymentsFor,
  type EventRow,
  type MatchingStatements,
  type MatchRow,
  type Scope,
} from "./store";

export type { Scope } from "./store";

export interface MatchOutcome {
  status: "matched" | "unmatched" | "ambiguous";
  orderId: string | null;
}

/** A match could not be written because one side was taken meanwhile (the caller rolls back). */
export class MatchConflictError extends Error {
  constructor(readonly side: "order" | "event") {
    super(`the ${side} is no longer open for matching`);
  }
}

/** Re-evaluation of a waiting payment: both sides must choose each other (engine.ts settleWaitingPayment). */
function settleWaiting(s: MatchingStatements, scope: Scope, payment: PaymentFacts, now: number): Settlement {
  return settleWaitingPayment(
    payment,
    candidateOrdersFor(s, scope, payment, now),
    (order) => waitingPaymentsFor(s, scope, order),
    now,
  );
}

/**
 * Writes a match: the match row (its seq is the feed's commit order), the order marked matched and
 * the event marked matched. Throws MatchConflictError when either side is no longer open.
 */
export function recordMatch(
  db: Db,
  now: number,
  event: EventRow,
  orderId: string,
  method: "auto" | "manual",
): MatchRow {
  const s = statements(db);
  // Time-ordered: matches_id_uq then grows at its end (one random page per match less).
  const id = newTimeOrderedId("mat", now);
  const scope = { tenantId: event.tenantId, environment: event.environment };
  if (changes(s.markOrderMatched.run({ ...scope, id: orderId, matchId: id, now })) !== 1) throw new MatchConflictError("order");
  if (changes(s.markEventMatched.run({ seq: event.seq, orderId })) !== 1) throw new MatchConflictError("event");
  const [row] = s.insertMatch.all({
    id,
    ...scope,
    orderId,
    eventSeq: event.seq,
    eventId: event.eventId,
    deviceId: event.deviceId,
    amount: event.amount,
    currency: event.currency,
    source: event.source,
    payerName: event.payerName,
    securityCode: event.securityCode,
    reference: event.reference,
    occurredAt: event.occurredAt,
    matchedAt: now,
    method,
  });
  return row!;
}

/**
 * contract §10 for a payment that just arrived. Called by event ingestion inside the transaction
 * that stored the (non-duplicate) event `eventSeq`; records the outcome on the event row and, when
 * the rules pick exactly one order, the match. A new payment is decided by rules 1–5 from its own
 * side only: other waiting payments that could concern the chosen order do not make it ambiguous
 * (the order's side applies to re-evaluation, reevaluateWaiting).
 */
export function matchNewEvent(tx: Db, now: number, eventSeq: number): MatchOutcome {
  const s = statements(tx);
  const event = s.eventBySeq.get({ seq: eventSeq });
  if (!event) throw new Error(`matchNewEvent: no event with seq ${eventSeq}`);
  if (event.matchStatus !== "unmatched" && event.matchStatus !== "ambiguous") {
    throw new Error(`matchNewEvent: event ${eventSeq} is ${event.matchStatus}; only new, non-duplicate events are matched`);
  }
  const scope = { tenantId: event.tenantId, environment: event.environment };
  const payment = paymentFactsOf(event);
  const decision = chooseOrder(payment, candidateOrdersFor(s, scope, payment, now), now);
  if (decision.outcome === "matched") {
    recordMatch(tx, now, event, decision.pick.id, "auto");
    return { status: "matched", orderId: decision.pick.id };
  }
  if (decision.outcome !== event.matchStatus) s.setWaitingStatus.run({ seq: eventSeq, status: decision.outcome });
  return { status: decision.outcome, orderId: null };
}

/** The amount and window an order had (before a change) or has (after it). */
export type OrderShape = Pick<OrderFacts, "expectedAmount" | "createdAt" | "expiresAt">;

/**
 * contract §10: when orders are created, re-synced as pending, cancelled or expire, the waiting
 * payments that could concern them (their amount and window, before and after the change) are
 * evaluated again with the same rules, from the order's side too: a payment matches only when its
 * order chooses it back among every waiting payment, so an order that could take two waiting
 * payments is left for a person (settleWaitingPayment). Runs to a fixed point over those
 * payments, since one match can settle another payment's ambiguity; every match is decided on the
 * state at that moment.
 * Returns the number of matches made.
 */
export function reevaluateWaiting(db: Db, scope: Scope, shapes: readonly OrderShape[], now: number): number {
  if (shapes.length === 0) return 0;
  const s = statements(db);
  const waiting = new Map<number, PaymentFacts & { matchStatus: EventRow["matchStatus"] }>();
  for (const shape of shapes) for (const p of waitingPaymentsFor(s, scope, shape)) waiting.set(p.seq, p);
  const queue = [...waiting.values()].sort((a, b) => a.seq - b.seq);
  let made = 0;
  for (let progress = true; progress && queue.length > 0; ) {
    progress = false;
    for (let i = 0; i < queue.length; i++) {
      const payment = queue[i]!;
      const decision = settleWaiting(s, scope, payment, now);
      if (decision.outcome === "matched") {
        recordMatch(db, now, s.eventBySeq.get({ seq: payment.seq })!, decision.order.id, "auto");
        queue.splice(i--, 1);
        made++;
        progress = true;
      } else if (decision.outcome !== payment.matchStatus) {
        s.setWaitingStatus.run({ seq: payment.seq, status: decision.outcome });
        payment.matchStatus = decision.outcome;
      }
    }
  }
  return made;
}

export const SWEEP_BATCH = 200;

/**
 * contract §10: "pending orders past expires_at read as expired". Reading is already correct
 * without this (candidates are filtered by expires_at at `now`); the sweep records the expiry and
 * re-evaluates the waiting payments that the expired orders kept ambiguous. Safe to call at any
 * interval and from any process; each batch is one transaction. Returns how many orders expired.
 */
export function sweepExpiredOrders(store: Store, now: number): number {
  let total = 0;
  for (;;) {
    const n = store.db.transaction(
      (tx) => {
        const s = statements(tx as unknown as Db);
        const due = s.expiredPending.all({ now, limit: SWEEP_BATCH });
        const byScope = new Map<string, { scope: Scope; shapes: OrderShape[] }>();
        for (const o of due) {
          if (changes(s.markExpired.run({ tenantId: o.tenantId, environment: o.environment, id: o.id, now })) !== 1) continue;
          const key = `${o.tenantId}\u0000${o.environment}`;
          const entry = byScope.get(key) ?? { scope: { tenantId: o.tenantId, environment: o.environment }, shapes: [] };
          entry.shapes.push(o);
          byScope.set(key, entry);
        }
        for (const { scope, shapes } of byScope.values()) reevaluateWaiting(tx as unknown as Db, scope, shapes, now);
        return due.length;
      },
      { behavior: "immediate" },
    );
    total += n;
    if (n < SWEEP_BATCH) return total;
  }
}

