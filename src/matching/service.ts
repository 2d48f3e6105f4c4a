// Matching against the store (contract §10): the engine's decisions (engine.ts) applied to the
// database. Each function runs inside the caller's transaction, so a match (the match row, the
// order and the event) is written all at once or not at all; the unique indexes on matches
// (one per order, one per event) are the last line of defence.
//
// Entry points:
// - decideNewEvent + recordAutoMatch: event ingestion, inside the transaction that stores a
//   non-duplicate event: the outcome is decided before the insert, so the event row is written once,
//   in its final state, and then the match row and the order.
// - reevaluateWaiting: after orders were created, re-synced, cancelled or expired.
// - recordMatch: a match of an event that was stored waiting (re-evaluation, or a person's).
// - expireOrders: periodic, in bounded steps; marks expired orders and re-evaluates what waited on them.
import { newTimeOrderedId } from "../ids";
import type { Db } from "../store/db";
import type { Writer } from "../store/writer";
import { chooseOrder, choosePayment, settleWaitingPayment, type Decision, type NewPaymentFacts, type OrderFacts, type PaymentFacts } from "./engine";
import {
  candidateOrdersFor,
  changes,
  pendingOrdersOf,
  matchingStatements,
  waitingPaymentsFor,
  type EventRow,
  type MatchingStatements,
  type MatchRow,
  type Scope,
  type WaitingPayment,
} from "./store";
import { writeStatuses } from "./status-writes";
import { cursorsOf } from "../connector/cursor";
import { eventView, matchView } from "../connector/views";
import { queueWebhook } from "../webhooks/outbox";

export type { Scope } from "./store";

export type MatchOutcome = { status: "matched"; orderId: string } | { status: "unmatched" | "ambiguous"; orderId: null };

/** A match could not be written because one side was taken meanwhile (the caller rolls back). */
export class MatchConflictError extends Error {
  constructor(readonly side: "order" | "event") {
    super(`the ${side} is no longer open for matching`);
  }
}

/** What a match row copies of its event. */
export type MatchedEvent = Pick<
  EventRow,
  | "seq"
  | "tenantId"
  | "environment"
  | "eventId"
  | "deviceId"
  | "amount"
  | "currency"
  | "source"
  | "payerName"
  | "securityCode"
  | "reference"
  | "occurredAt"
>;

/**
 * Writes a match of an event that was stored waiting: the order marked matched, the event marked
 * matched and the match row (its seq is the feed's commit order). Throws MatchConflictError when
 * either side is no longer open.
 */
export function recordMatch(
  db: Db,
  now: number,
  event: EventRow,
  orderId: string,
  method: "auto" | "manual",
): MatchRow {
  const s = matchingStatements(db);
  const id = markOrderMatched(s, now, event, orderId);
  if (changes(s.markEventMatched.run({ seq: event.seq, orderId })) !== 1) throw new MatchConflictError("event");
  const match = insertMatch(db, s, now, id, event, orderId, method);
  queueWebhook(db, event, "payment.updated", () => eventView(s.eventBySeq.get({ seq: event.seq })!), now);
  return match;
}

/**
 * The outcome of rules 1–5 for a payment that is being stored, decided from its own side only
 * (contract §10): other waiting payments that could concern the chosen order do not make it
 * ambiguous (the order's side applies to re-evaluation, reevaluateWaiting). Reads orders only, so
 * ingestion calls it before inserting the event and writes the event row once, with this outcome;
 * a `matched` outcome must then be written by recordAutoMatch in the same transaction.
 */
export function decideNewEvent(tx: Db, now: number, scope: Scope, payment: NewPaymentFacts): MatchOutcome {
  const s = matchingStatements(tx);
  const decision = chooseOrder(payment, candidateOrdersFor(s, scope, payment, now), now);
  if (decision.outcome === "matched") return { status: "matched", orderId: decision.pick.id };
  return { status: decision.outcome, orderId: null };
}

/**
 * Writes the match that decideNewEvent chose for `event`, which was just inserted already matched
 * to `orderId`: the order marked matched and the match row. Throws MatchConflictError when the order
 * is no longer open (the caller rolls back the event with it); matches_order_uq and
 * matches_event_uq stay the last line of defence.
 */
export function recordAutoMatch(tx: Db, now: number, event: MatchedEvent, orderId: string): MatchRow {
  const s = matchingStatements(tx);
  const id = markOrderMatched(s, now, event, orderId);
  return insertMatch(tx, s, now, id, event, orderId, "auto");
}

/** Marks the order matched under a new match id, which it returns; throws MatchConflictError when it is not open. */
function markOrderMatched(s: MatchingStatements, now: number, event: MatchedEvent, orderId: string): string {
  // Time-ordered: matches_id_uq then grows at its end (one random page per match less).
  const id = newTimeOrderedId("mat", now);
  const scope = { tenantId: event.tenantId, environment: event.environment };
  if (changes(s.markOrderMatched.run({ ...scope, id: orderId, matchId: id, now })) !== 1) throw new MatchConflictError("order");
  return id;
}

/** The match row, and its `match.created` webhook in the same transaction (contract §15). */
function insertMatch(
  db: Db,
  s: MatchingStatements,
  now: number,
  id: string,
  event: MatchedEvent,
  orderId: string,
  method: "auto" | "manual",
): MatchRow {
  const row: Omit<MatchRow, "seq"> = {
    id,
    tenantId: event.tenantId,
    environment: event.environment,
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
  };
  const { lastInsertRowid } = s.insertMatch.run(row);
  const match: MatchRow = { seq: Number(lastInsertRowid), ...row };
  queueWebhook(db, event, "match.created", () => matchView(match, cursorsOf(db)), now);
  return match;
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
  const s = matchingStatements(db);
  // A payment meets only orders of its own amount, and an order only payments of its expected
  // amount: each amount settles on its own.
  const byAmount = new Map<number, Map<number, WaitingPayment>>();
  for (const shape of shapes) {
    for (const p of waitingPaymentsFor(s, scope, shape)) {
      let group = byAmount.get(p.amount);
      if (!group) byAmount.set(p.amount, (group = new Map()));
      group.set(p.seq, p);
    }
  }
  let made = 0;
  for (const [amount, group] of byAmount) {
    made += settleAmount(db, s, scope, amount, [...group.values()].sort((a, b) => a.seq - b.seq), now);
  }
  return made;
}

/**
 * Re-evaluates the waiting payments of one amount in the order they were stored, until a pass makes
 * no match. Status changes (unmatched ↔ ambiguous) are written once, at the end, and past the first
 * thousand in later writes (status-writes.ts): both are waiting, and no rule reads which of the two
 * a payment is.
 */
function settleAmount(db: Db, s: MatchingStatements, scope: Scope, amount: number, queue: WaitingPayment[], now: number): number {
  const known = amountState(s, scope, amount, now);
  const stored = new Map(queue.map((p) => [p.seq, p.matchStatus]));
  let made = 0;
  for (let progress = true; progress && queue.length > 0; ) {
    progress = false;
    for (let i = 0; i < queue.length; i++) {
      const payment = queue[i]!;
      const decision = settleWaitingPayment(payment, known.pendingOrders(), known.orderSide, now);
      if (decision.outcome === "matched") {
        recordMatch(db, now, s.eventBySeq.get({ seq: payment.seq })!, decision.order.id, "auto");
        known.matched(decision.order.id, payment.seq);
        queue.splice(i--, 1);
        made++;
        progress = true;
      } else {
        payment.matchStatus = decision.outcome;
      }
    }
  }
  writeStatuses(
    db,
    queue.map((p) => ({ seq: p.seq, stored: stored.get(p.seq)!, status: p.matchStatus })),
    now,
  );
  return made;
}

/**
 * What the rules read for one amount during a re-evaluation, each read once and kept up to date as
 * matches are made: the pending orders, and each order's decision among the waiting payments that
 * could concern it. Asking per payment instead read an order's whole window once per waiting
 * payment, quadratic in the backlog: syncing one order created three days back, on an amount with
 * 3 400 waiting payments, held the write lock for 16 s (bench seed); a month back had not finished
 * after 5 minutes.
 */
function amountState(s: MatchingStatements, scope: Scope, amount: number, now: number) {
  let pending: OrderFacts[] | null = null;
  const waitingOf = new Map<string, WaitingPayment[]>();
  const decisionOf = new Map<string, Decision<PaymentFacts>>();
  return {
    pendingOrders: (): OrderFacts[] => (pending ??= pendingOrdersOf(s, scope, amount, now)),
    orderSide: (order: OrderFacts): Decision<PaymentFacts> => {
      let decision = decisionOf.get(order.id);
      if (!decision) {
        let waiting = waitingOf.get(order.id);
        if (!waiting) waitingOf.set(order.id, (waiting = waitingPaymentsFor(s, scope, order)));
        decisionOf.set(order.id, (decision = choosePayment(order, waiting, now)));
      }
      return decision;
    },
    /** The order is no longer pending and the payment no longer waits: only decisions that saw them change. */
    matched(orderId: string, seq: number): void {
      pending = pending && pending.filter((o) => o.id !== orderId);
      waitingOf.delete(orderId);
      decisionOf.delete(orderId);
      for (const [id, waiting] of waitingOf) {
        const at = waiting.findIndex((p) => p.seq === seq);
        if (at < 0) continue;
        waiting.splice(at, 1);
        decisionOf.delete(id);
      }
    },
  };
}

/** Orders expired per write: one bounded step of the sweep (contract §14). */
export const SWEEP_BATCH = 200;

/**
 * Pending orders past expires_at that the sweep has yet to record (a read: serve asks before it
 * hands the writer a step, and most sweeps find none).
 */
export function expiryDue(db: Db, now: number): boolean {
  return matchingStatements(db).expiredPending.all({ now, limit: 1 }).length > 0;
}

/**
 * contract §10: "pending orders past expires_at read as expired". Reading is already correct
 * without this (candidates are filtered by expires_at at `now`); the sweep records the expiry of up
 * to `limit` orders and re-evaluates the waiting payments they kept ambiguous. A write of the
 * writer (src/writes.ts); serve repeats it while it returns `limit`. Returns how many expired.
 */
export function expireOrders(tx: Db, now: number, limit: number = SWEEP_BATCH): number {
  const s = matchingStatements(tx);
  const due = s.expiredPending.all({ now, limit });
  const byScope = new Map<string, { scope: Scope; shapes: OrderShape[] }>();
  for (const o of due) {
    if (changes(s.markExpired.run({ tenantId: o.tenantId, environment: o.environment, id: o.id, now })) !== 1) continue;
    const key = `${o.tenantId}\u0000${o.environment}`;
    const entry = byScope.get(key) ?? { scope: { tenantId: o.tenantId, environment: o.environment }, shapes: [] };
    entry.shapes.push(o);
    byScope.set(key, entry);
  }
  for (const { scope, shapes } of byScope.values()) reevaluateWaiting(tx, scope, shapes, now);
  return due.length;
}

/**
 * serve's expiry sweep: records every expiry due at `now` through the writer, in bounded steps
 * (expireOrders), each a write of its own so that other writes go in between (contract §14).
 * Asks the reader first: most sweeps find nothing and hand the writer no work.
 */
export async function sweepExpiredOrders(reader: Db, writer: Writer, now: number): Promise<number> {
  if (!expiryDue(reader, now)) return 0;
  let expired = 0;
  for (let n = SWEEP_BATCH; n === SWEEP_BATCH; expired += n) {
    n = await writer.run("expireOrders", { now, limit: SWEEP_BATCH });
  }
  return expired;
}
