// The matching engine (contract §10): pure functions over plain records. No HTTP, no SQL, no clock
// of its own: the caller passes `now`. Reading order follows the contract: the window, the
// candidates, rules 1–5, and the order's side of the same rules.
import { namesCompatible } from "./names";

/** An order may be paid from 120 s before it was created (the customer was quick)… */
export const EARLY_PAYMENT_MS = 120_000;
/** …and unique amounts add k cents, k in 0–99 (contract §10). */
export const UNIQUE_AMOUNT_MAX_OFFSET = 99;
/** Amounts are 1 to 100 000 000 cents (contract §2.3). */
export const MAX_AMOUNT = 100_000_000;

export type OrderStatus = "pending" | "matched" | "cancelled" | "expired";

/** What matching needs to know of an order. */
export interface OrderFacts {
  id: string;
  expectedAmount: number;
  currency: string;
  status: OrderStatus;
  createdAt: number;
  expiresAt: number;
  customerName: string | null;
  securityCode: string | null;
}

/** What matching needs to know of a payment, stored or about to be. */
export interface NewPaymentFacts {
  amount: number;
  currency: string;
  occurredAt: number;
  payerName: string | null;
  securityCode: string | null;
}

/** A stored payment event: `seq` identifies it. */
export interface PaymentFacts extends NewPaymentFacts {
  seq: number;
}

/** Which rule of §10 decided a match (kept for tests and for reading the code, not stored). */
export type Rule = "security_code" | "single_candidate" | "payer_name";

export type Decision<T> =
  | { outcome: "matched"; pick: T; rule: Rule }
  | { outcome: "ambiguous"; candidates: T[] }
  | { outcome: "unmatched" };

/** contract §10: a pending order past `expires_at` reads as expired. Exactly at `expires_at` it is still pending. */
export function effectiveStatus(order: { status: OrderStatus; expiresAt: number }, now: number): OrderStatus {
  if (order.status === "pending" && now > order.expiresAt) return "expired";
  return order.status;
}

/** `created_at − 120 000 ≤ occurred_at ≤ expires_at`, both ends included. */
export function inWindow(order: Pick<OrderFacts, "createdAt" | "expiresAt">, occurredAt: number): boolean {
  return order.createdAt - EARLY_PAYMENT_MS <= occurredAt && occurredAt <= order.expiresAt;
}

/** Two security codes conflict only when both are present and differ. */
export function codesConflict(a: string | null, b: string | null): boolean {
  return a !== null && b !== null && a !== b;
}

/** Both present and equal: the strongest evidence there is (rule 1). */
export function codesAgree(a: string | null, b: string | null): boolean {
  return a !== null && b !== null && a === b;
}

/**
 * Whether `order` is a candidate for `payment`: pending now, the same expected amount and currency,
 * the payment inside the order's window, and no conflicting security code.
 */
export function isCandidate(order: OrderFacts, payment: NewPaymentFacts, now: number): boolean {
  return (
    effectiveStatus(order, now) === "pending" &&
    order.expectedAmount === payment.amount &&
    order.currency === payment.currency &&
    inWindow(order, payment.occurredAt) &&
    !codesConflict(order.securityCode, payment.securityCode)
  );
}

/**
 * Rules 1–5 over a list of candidates, from whichever side: exactly one carrying the security code;
 * else exactly one candidate; else exactly one with a compatible name; else ambiguous; none:
 * unmatched. Never guess.
 */
export function decide<T>(candidates: readonly T[], carriesCode: (c: T) => boolean, nameFits: (c: T) => boolean): Decision<T> {
  if (candidates.length === 0) return { outcome: "unmatched" };
  const withCode = candidates.filter(carriesCode);
  if (withCode.length === 1) return { outcome: "matched", pick: withCode[0]!, rule: "security_code" };
  if (candidates.length === 1) return { outcome: "matched", pick: candidates[0]!, rule: "single_candidate" };
  const fitting = candidates.filter(nameFits);
  if (fitting.length === 1) return { outcome: "matched", pick: fitting[0]!, rule: "payer_name" };
  return { outcome: "ambiguous", candidates: [...candidates] };
}

/** The event's side: which of these orders the payment pays, by rules 1–5. */
export function chooseOrder(payment: NewPaymentFacts, orders: readonly OrderFacts[], now: number): Decision<OrderFacts> {
  return decide(
    orders.filter((o) => isCandidate(o, payment, now)),
    (o) => codesAgree(o.securityCode, payment.securityCode),
    (o) => namesCompatible(payment.payerName, o.customerName),
  );
}

/** The order's side (contract §10, re-evaluation): which of these waiting payments pays the order, by the same rules. */
export function choosePayment(order: OrderFacts, payments: readonly PaymentFacts[], now: number): Decision<PaymentFacts> {
  return decide(
    payments.filter((p) => isCandidate(order, p, now)),
    (p) => codesAgree(order.securityCode, p.securityCode),
    (p) => namesCompatible(p.payerName, order.customerName),
  );
}

export type Settlement =
  | { outcome: "matched"; order: OrderFacts; rule: Rule }
  | { outcome: "ambiguous" }
  | { outcome: "unmatched" };

/**
 * Re-evaluation of a payment that waits (contract §10, when an order is created, re-synced as
 * pending, cancelled or expires). The payment must choose the order (rules 1–5 over the pending
 * orders), and the order, looking at every waiting payment that could concern it, must choose the
 * payment back by the same rules: an order that could take two waiting payments is left for a
 * person (`ambiguous`).
 *
 * Not for a payment that just arrived: that one is decided by `chooseOrder` alone (rules 1–5 from
 * the event's side).
 *
 * `orderSide(order)` is the order's decision, `choosePayment(order, waiting, now)`, over the waiting
 * payments (unmatched or ambiguous, never duplicates) of the same tenant and environment with the
 * order's expected amount. `payment` is among them: it waits, and it chose the order, so it lies in
 * the order's window. The order's decision is the same for every payment that asks, so the caller
 * can make it once per order rather than once per payment (matching/service.ts).
 */
export function settleWaitingPayment(
  payment: PaymentFacts,
  orders: readonly OrderFacts[],
  orderSide: (order: OrderFacts) => Decision<PaymentFacts>,
  now: number,
): Settlement {
  const mine = chooseOrder(payment, orders, now);
  if (mine.outcome !== "matched") return mine.outcome === "ambiguous" ? { outcome: "ambiguous" } : { outcome: "unmatched" };
  const theirs = orderSide(mine.pick);
  if (theirs.outcome === "matched" && theirs.pick.seq === payment.seq) return { outcome: "matched", order: mine.pick, rule: mine.rule };
  return { outcome: "ambiguous" };
}

/**
 * contract §10 unique amounts: the smallest k in 0–99 such that `amount + k` is not the expected
 * amount of another pending order (`taken`), or null when none is free. Amounts above the contract's
 * maximum could never be paid, so they are not offered.
 */
export function uniqueAmountOffset(amount: number, taken: ReadonlySet<number>): number | null {
  for (let k = 0; k <= UNIQUE_AMOUNT_MAX_OFFSET; k++) {
    if (amount + k > MAX_AMOUNT) return null;
    if (!taken.has(amount + k)) return k;
  }
  return null;
}
