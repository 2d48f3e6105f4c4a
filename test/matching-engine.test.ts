// Table-driven tests of the matching rules (contract §10), one table per rule, with boundaries.
import { describe, expect, test } from "bun:test";
import {
  choosePayment,
  chooseOrder,
  effectiveStatus,
  EARLY_PAYMENT_MS,
  inWindow,
  isCandidate,
  settleWaitingPayment,
  uniqueAmountOffset,
  type OrderFacts,
  type OrderStatus,
  type Decision,
  type PaymentFacts,
} from "../src/matching/engine";
import { namesCompatible, payerWords, nameWords } from "../src/matching/names";

const NOW = Date.UTC(2026, 10, 21, 12, 0, 0);
const HOUR = 3600_000;

/** The order's side of re-evaluation over these waiting payments, as the service makes it. */
const waitingAre =
  (...payments: PaymentFacts[]) =>
  (o: OrderFacts): Decision<PaymentFacts> =>
    choosePayment(o, payments, NOW);

const order = (id: string, o: Partial<OrderFacts> = {}): OrderFacts => ({
  id,
  expectedAmount: 2500,
  currency: "PEN",
  status: "pending",
  createdAt: NOW - HOUR,
  expiresAt: NOW + HOUR,
  customerName: null,
  securityCode: null,
  ...o,
});

const payment = (seq: number, p: Partial<PaymentFacts> = {}): PaymentFacts => ({
  seq,
  amount: 2500,
  currency: "PEN",
  occurredAt: NOW - 1000,
  payerName: null,
  securityCode: null,
  ...p,
});

describe("names: compatible without case or accents, word by word, `*` as a prefix", () => {
  const cases: [string | null, string | null, boolean][] = [
    ["Yanina Man*", "Yanina Manrique López", true],
    ["yanina man*", "YANINA MANRIQUE LÓPEZ", true],
    ["Yanina Manrique López", "yanina manrique lopez", true],
    ["José Pérez", "Jose Perez", true],
    ["Jose Perez", "José Pérez", true],
    ["Ñuñez", "Nunez Ríos", true],
    ["Yanina Man*", "Yanina Soto Manrique", false], // the second word must correspond
    ["Man* Yanina", "Yanina Manrique", false], // in order
    ["Yanina Mar*", "Yanina Manrique", false],
    ["Yanina Manrique López Soto", "Yanina Manrique López", false], // more words than the customer has
    ["Yan", "Yanina", true], // a visible word is a prefix
    ["Yanina", "Yan", false],
    ["*", "Yanina", false], // nothing visible: no evidence
    ["Yanina *", "Yanina Manrique", true],
    // A lone `*` holds the place of a word cut to nothing: the words after it keep their positions.
    ["Ana * Soto", "Ana Soto Ruiz", false],
    ["Ana * Soto", "Ana María Soto", true],
    ["* Soto", "Soto Ruiz", false],
    ["", "Yanina", false],
    [null, "Yanina", false],
    ["Yanina", null, false],
    ["Yanina", "", false],
    ["María-José Q*", "María José Quispe", true],
    ["  Luis   Q*  ", "Luis Quispe", true],
  ];
  test.each(cases)("%p fits %p → %p", (payer, customer, expected) => {
    expect(namesCompatible(payer, customer)).toBe(expected);
  });

  test("word splitting", () => {
    expect(payerWords("Yanina Man*")).toEqual(["yanina", "man"]);
    expect(nameWords("Yanina Manrique-López")).toEqual(["yanina", "manrique", "lopez"]);
  });
});

describe("window: created_at − 120 000 ≤ occurred_at ≤ expires_at", () => {
  const o = order("A", { createdAt: NOW, expiresAt: NOW + HOUR });
  const cases: [string, number, boolean][] = [
    ["exactly 120 s early", NOW - EARLY_PAYMENT_MS, true],
    ["120 s and 1 ms early", NOW - EARLY_PAYMENT_MS - 1, false],
    ["at created_at", NOW, true],
    ["exactly at expires_at", NOW + HOUR, true],
    ["1 ms after expires_at", NOW + HOUR + 1, false],
  ];
  test.each(cases)("%s", (_name, occurredAt, expected) => {
    expect(inWindow(o, occurredAt)).toBe(expected);
    // the same boundary decides whether it is a candidate (order still pending at `now`)
    expect(isCandidate(o, payment(1, { occurredAt }), NOW)).toBe(expected);
  });
});

describe("status: a pending order past expires_at reads as expired", () => {
  const cases: [string, OrderFacts["status"], number, OrderStatus][] = [
    ["pending, before expiry", "pending", NOW - 1, "pending"],
    ["pending, exactly at expires_at", "pending", NOW, "pending"],
    ["pending, 1 ms past", "pending", NOW + 1, "expired"],
    ["cancelled stays cancelled", "cancelled", NOW + 1, "cancelled"],
    ["matched stays matched", "matched", NOW + 1, "matched"],
    ["recorded expired", "expired", NOW - 1, "expired"],
  ];
  test.each(cases)("%s", (_n, status, now, expected) => {
    expect(effectiveStatus({ status, expiresAt: NOW }, now)).toBe(expected);
  });

  test("an order past expires_at is no candidate even for a payment inside its window", () => {
    const o = order("A", { createdAt: NOW - 2 * HOUR, expiresAt: NOW - HOUR });
    expect(inWindow(o, NOW - 90 * 60_000)).toBe(true);
    expect(isCandidate(o, payment(1, { occurredAt: NOW - 90 * 60_000 }), NOW)).toBe(false);
    expect(isCandidate(o, payment(1, { occurredAt: NOW - 90 * 60_000 }), NOW - HOUR)).toBe(true);
  });
});

describe("candidates", () => {
  const cases: [string, Partial<OrderFacts>, Partial<PaymentFacts>, boolean][] = [
    ["same amount, currency, window", {}, {}, true],
    ["expected amount differs", { expectedAmount: 2501 }, {}, false],
    ["currency differs", { currency: "USD" }, {}, false],
    ["security codes differ (both present)", { securityCode: "111" }, { securityCode: "222" }, false],
    ["security code only on the order", { securityCode: "111" }, {}, true],
    ["security code only on the payment", {}, { securityCode: "222" }, true],
    ["cancelled", { status: "cancelled" }, {}, false],
    ["matched", { status: "matched" }, {}, false],
  ];
  test.each(cases)("%s", (_n, o, p, expected) => {
    expect(isCandidate(order("A", o), payment(1, p), NOW)).toBe(expected);
  });
});

describe("rules 1–5 from the payment's side", () => {
  type Case = [string, OrderFacts[], Partial<PaymentFacts>, "matched" | "ambiguous" | "unmatched", string | null, string | null];
  const cases: Case[] = [
    ["rule 5: no candidate", [order("A", { expectedAmount: 9999 })], {}, "unmatched", null, null],
    ["rule 2: a single candidate", [order("A")], {}, "matched", "A", "single_candidate"],
    ["rule 2: single after dropping a conflicting code", [order("A", { securityCode: "111" }), order("B")], { securityCode: "222" }, "matched", "B", "single_candidate"],
    ["rule 1: exactly one carries the code", [order("A", { securityCode: "482" }), order("B")], { securityCode: "482" }, "matched", "A", "security_code"],
    ["rule 1 beats names", [order("A", { securityCode: "482" }), order("B", { customerName: "Yanina Manrique" })], { securityCode: "482", payerName: "Yanina Man*" }, "matched", "A", "security_code"],
    ["two carry the code, names tell", [order("A", { securityCode: "482", customerName: "Luis Quispe" }), order("B", { securityCode: "482", customerName: "Yanina Manrique" })], { securityCode: "482", payerName: "Yanina Man*" }, "matched", "B", "payer_name"],
    ["rule 3: exactly one compatible name", [order("A", { customerName: "Luis Quispe" }), order("B", { customerName: "Yanina Manrique López" })], { payerName: "Yanina Man*" }, "matched", "B", "payer_name"],
    ["rule 3 with accents and case", [order("A", { customerName: "Luis Quispe" }), order("B", { customerName: "YANINA MÁNRIQUE" })], { payerName: "yanina man*" }, "matched", "B", "payer_name"],
    ["rule 4: two compatible names", [order("A", { customerName: "Yanina Manrique" }), order("B", { customerName: "Yanina Mansilla" })], { payerName: "Yanina Man*" }, "ambiguous", null, null],
    ["rule 4: no names at all", [order("A"), order("B")], {}, "ambiguous", null, null],
    ["rule 4: no payer name", [order("A", { customerName: "Ana" }), order("B", { customerName: "Beto" })], {}, "ambiguous", null, null],
    ["rule 4: none compatible", [order("A", { customerName: "Ana" }), order("B", { customerName: "Beto" })], { payerName: "Carla" }, "ambiguous", null, null],
    ["expired candidate ignored", [order("A", { expiresAt: NOW - 1 }), order("B")], {}, "matched", "B", "single_candidate"],
    ["window 120 s early is inside", [order("A", { createdAt: NOW })], { occurredAt: NOW - 120_000 }, "matched", "A", "single_candidate"],
    ["window 120 001 ms early is outside", [order("A", { createdAt: NOW })], { occurredAt: NOW - 120_001 }, "unmatched", null, null],
  ];
  test.each(cases)("%s", (_n, orders, p, outcome, pick, rule) => {
    const d = chooseOrder(payment(1, p), orders, NOW);
    expect(d.outcome).toBe(outcome);
    expect(d.outcome === "matched" ? d.pick.id : null).toBe(pick);
    expect(d.outcome === "matched" ? d.rule : null).toBe(rule as never);
  });
});

describe("the same rules from the order's side", () => {
  type Case = [string, Partial<OrderFacts>, PaymentFacts[], "matched" | "ambiguous" | "unmatched", number | null];
  const cases: Case[] = [
    ["no waiting payment", {}, [], "unmatched", null],
    ["one waiting payment", {}, [payment(1)], "matched", 1],
    ["two indistinguishable: left for a person", {}, [payment(1), payment(2)], "ambiguous", null],
    ["two, one carries the order's code", { securityCode: "482" }, [payment(1, { securityCode: "482" }), payment(2)], "matched", 1],
    ["two, one has a conflicting code", { securityCode: "482" }, [payment(1, { securityCode: "999" }), payment(2)], "matched", 2],
    ["two, one fits the customer's name", { customerName: "Yanina Manrique" }, [payment(1, { payerName: "Luis Q*" }), payment(2, { payerName: "Yanina Man*" })], "matched", 2],
    ["payment outside the window is not a candidate", { createdAt: NOW }, [payment(1, { occurredAt: NOW - 120_001 }), payment(2, { occurredAt: NOW })], "matched", 2],
  ];
  test.each(cases)("%s", (_n, o, payments, outcome, pick) => {
    const d = choosePayment(order("A", o), payments, NOW);
    expect(d.outcome).toBe(outcome);
    expect(d.outcome === "matched" ? d.pick.seq : null).toBe(pick);
  });
});

describe("a new payment: rules 1–5 from its own side only", () => {
  // Two orders of the same amount; a first payment "Ana" fits both (ambiguous) and waits. A second
  // payment "Ana L*" fits only S-1: rule 3 picks S-1. The waiting "Ana" also fits S-1, so from the
  // order's side S-1 could take either payment; that rule is for re-evaluation, not for a new event.
  const orders = [order("S-1", { expectedAmount: 8100, customerName: "Ana Lopez" }), order("S-2", { expectedAmount: 8100, customerName: "Ana Ruiz" })];
  const waiting = payment(1, { amount: 8100, payerName: "Ana" });
  const fresh = payment(2, { amount: 8100, payerName: "Ana L*" });
  test("the waiting payment alone is ambiguous", () => {
    expect(chooseOrder(waiting, orders, NOW).outcome).toBe("ambiguous");
  });
  test("the new payment picks S-1 by rule 3", () => {
    expect(chooseOrder(fresh, orders, NOW)).toMatchObject({ outcome: "matched", pick: { id: "S-1" }, rule: "payer_name" });
  });
  test("whereas re-evaluating it as a waiting payment leaves S-1 for a person", () => {
    expect(settleWaitingPayment(fresh, orders, waitingAre(waiting, fresh), NOW).outcome).toBe("ambiguous");
  });
});

describe("settleWaitingPayment (re-evaluation): both sides must choose each other", () => {
  test("no rival: the payment's choice stands", () => {
    const s = settleWaitingPayment(payment(1), [order("A")], waitingAre(payment(1)), NOW);
    expect(s).toMatchObject({ outcome: "matched", order: { id: "A" }, rule: "single_candidate" });
  });
  test("a rival outside the order's window is no rival", () => {
    const s = settleWaitingPayment(payment(1), [order("A")], waitingAre(payment(1), payment(2, { occurredAt: NOW + 2 * HOUR })), NOW);
    expect(s.outcome).toBe("matched");
  });
  test("an order that could take two waiting payments is left for a person: ambiguous", () => {
    const s = settleWaitingPayment(payment(3), [order("A")], waitingAre(payment(1), payment(2), payment(3)), NOW);
    expect(s.outcome).toBe("ambiguous");
  });
  test("the rival loses when only this payment carries the order's code", () => {
    const s = settleWaitingPayment(payment(3, { securityCode: "482" }), [order("A", { securityCode: "482" })], waitingAre(payment(1), payment(3, { securityCode: "482" })), NOW);
    expect(s).toMatchObject({ outcome: "matched", rule: "security_code" });
  });
  test("the rival wins when only it fits the customer's name", () => {
    const s = settleWaitingPayment(payment(3), [order("A", { customerName: "Ana Soto" })], waitingAre(payment(1, { payerName: "Ana S*" }), payment(3)), NOW);
    expect(s.outcome).toBe("ambiguous");
  });
  test("an order's side that does not pick this payment never matches it (never guess)", () => {
    expect(settleWaitingPayment(payment(1), [order("A")], () => ({ outcome: "unmatched" }), NOW).outcome).toBe("ambiguous");
  });
  test("payment-side ambiguity is reported as ambiguous, no candidate as unmatched, without asking the orders", () => {
    const asked: string[] = [];
    const side = (o: OrderFacts): Decision<PaymentFacts> => (asked.push(o.id), choosePayment(o, [payment(1)], NOW));
    expect(settleWaitingPayment(payment(1), [order("A"), order("B")], side, NOW).outcome).toBe("ambiguous");
    expect(settleWaitingPayment(payment(1), [], side, NOW).outcome).toBe("unmatched");
    expect(asked).toEqual([]);
  });
});

describe("unique amounts: the smallest free k in 0–99", () => {
  const cases: [string, number, number[], number | null][] = [
    ["nothing held", 2500, [], 0],
    ["amount held", 2500, [2500], 1],
    ["gaps are reused", 2500, [2500, 2502], 1],
    ["others' amounts outside the range do not matter", 2500, [2499, 2600], 0],
    ["k = 99 is the last", 2500, Array.from({ length: 99 }, (_, k) => 2500 + k), 99],
    ["all 100 held", 2500, Array.from({ length: 100 }, (_, k) => 2500 + k), null],
    ["never above the maximum amount", 99_999_999, [99_999_999, 100_000_000], null],
    ["an order of exactly the maximum amount gets k = 0", 100_000_000, [], 0],
    ["just below the maximum: the maximum itself is the last offered", 99_999_999, [99_999_999], 1],
  ];
  test.each(cases)("%s", (_n, amount, held, k) => {
    expect(uniqueAmountOffset(amount, new Set(held))).toBe(k);
  });
});
