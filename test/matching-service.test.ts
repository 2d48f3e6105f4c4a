// The matching engine against the database: payments through ingestion, orders through sync,
// re-evaluation, expiry and the sweeper, and the query plans (indexes, never scans).
import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import { ManualClock } from "../src/clock";
import { decideNewEvent, MatchConflictError, recordAutoMatch, sweepExpiredOrders } from "../src/matching/service";
import { MATCHING_SQL, matchingStatements as statements } from "../src/matching/store";
import { DomainError } from "../src/errors";
import type { Db } from "../src/store/db";
import { createTenant } from "../src/tenants/service";
import { makeTestApp } from "./support/harness";
import { eventRow, matchCount, order, orderRow, pay, sync, type Scope } from "./support/connector";

const t = await makeTestApp();
afterAll(() => t.close());
const { store, clock } = t;
const MIN = 60_000;
const HOUR = 60 * MIN;

let scope: Scope;
beforeEach(() => {
  scope = { tenantId: createTenant(store.db, clock, "Bodega").tenant_id, environment: "test" };
});

describe("a payment and its order", () => {
  test("a payment with one candidate matches at once", async () => {
    await sync(t, scope, [order("A-1", 2500)]);
    const p = await pay(t, scope, { amount: 2500 });
    expect(p.match).toEqual({ status: "matched", order_id: "A-1" });
    expect(orderRow(store, scope, "A-1")!.status).toBe("matched");
    expect(eventRow(store, p.eventId)).toMatchObject({ match_status: "matched", order_id: "A-1" });
  });

  test("a payment before its order waits, and matches when the order is synced", async () => {
    const p = await pay(t, scope, { amount: 2500, payerName: "Yanina Man*" });
    expect(p.match.status).toBe("unmatched");
    clock.advance(30_000);
    const [o] = await sync(t, scope, [order("A-1", 2500, { created_at: clock.now() - 60_000 })]);
    expect(o!.status).toBe("matched");
    expect(o!.match).toMatchObject({ event_id: p.eventId, method: "auto", amount: 2500 });
    expect(eventRow(store, p.eventId)).toMatchObject({ match_status: "matched", order_id: "A-1" });
  });

  test("a payment more than 120 s before the order was created does not match it", async () => {
    const p = await pay(t, scope, { amount: 2500, occurredAt: clock.now() - 120_001 });
    await sync(t, scope, [order("A-1", 2500, { created_at: clock.now() })]);
    expect(eventRow(store, p.eventId)!.match_status).toBe("unmatched");
    expect(orderRow(store, scope, "A-1")!.status).toBe("pending");
  });

  test("a payment exactly 120 s before the order was created matches it", async () => {
    const p = await pay(t, scope, { amount: 2500, occurredAt: clock.now() - 120_000 });
    await sync(t, scope, [order("A-1", 2500, { created_at: clock.now() })]);
    expect(eventRow(store, p.eventId)).toMatchObject({ match_status: "matched", order_id: "A-1" });
  });

  test("two orders of S/ 25.00 at the same moment: the payment is ambiguous, nothing is marked paid", async () => {
    await sync(t, scope, [order("A-1", 2500), order("A-2", 2500)]);
    const p = await pay(t, scope, { amount: 2500 });
    expect(p.match).toEqual({ status: "ambiguous", order_id: null });
    expect(orderRow(store, scope, "A-1")!.status).toBe("pending");
    expect(orderRow(store, scope, "A-2")!.status).toBe("pending");
  });

  test("cancelling one of two candidates settles the waiting payment on the other", async () => {
    await sync(t, scope, [order("A-1", 2500), order("A-2", 2500)]);
    const p = await pay(t, scope, { amount: 2500 });
    const [a1, a2] = await sync(t, scope, [order("A-1", 2500, { status: "cancelled" }), order("A-2", 2500)]);
    expect(a1!.status).toBe("cancelled");
    expect(a2!.status).toBe("matched");
    expect(eventRow(store, p.eventId)).toMatchObject({ match_status: "matched", order_id: "A-2" });
  });

  test("an order that could take two waiting payments is left for a person", async () => {
    const p1 = await pay(t, scope, { amount: 2500 });
    const p2 = await pay(t, scope, { amount: 2500, source: "plin" });
    const [o] = await sync(t, scope, [order("A-1", 2500, { created_at: clock.now() - MIN })]);
    expect(o!.status).toBe("pending");
    expect(eventRow(store, p1.eventId)!.match_status).toBe("ambiguous");
    expect(eventRow(store, p2.eventId)!.match_status).toBe("ambiguous");
    // a new payment is decided from its own side (rules 1–5): A-1 is its only candidate
    const p3 = await pay(t, scope, { amount: 2500, source: "bbva" });
    expect(p3.match).toEqual({ status: "matched", order_id: "A-1" });
    expect(eventRow(store, p1.eventId)!.match_status).toBe("ambiguous");
    expect(eventRow(store, p2.eventId)!.match_status).toBe("ambiguous");
  });

  test("a new payment is decided from its own side: a waiting payment that fits the same order does not make it ambiguous", async () => {
    await sync(t, scope, [order("S-1", 8100, { customer_name: "Ana Lopez" }), order("S-2", 8100, { customer_name: "Ana Ruiz" })]);
    const first = await pay(t, scope, { amount: 8100, payerName: "Ana" });
    expect(first.match).toEqual({ status: "ambiguous", order_id: null });
    const second = await pay(t, scope, { amount: 8100, payerName: "Ana L*", source: "plin" });
    expect(second.match).toEqual({ status: "matched", order_id: "S-1" }); // rule 3
    expect(orderRow(store, scope, "S-1")!.status).toBe("matched");
    expect(orderRow(store, scope, "S-2")!.status).toBe("pending");
    expect(eventRow(store, first.eventId)!.match_status).toBe("ambiguous");
  });

  test("the order's side uses the same rules: the waiting payment with the customer's name wins", async () => {
    const p1 = await pay(t, scope, { amount: 2500, payerName: "Luis Q*" });
    const p2 = await pay(t, scope, { amount: 2500, payerName: "Yanina Man*", source: "plin" });
    await sync(t, scope, [order("A-1", 2500, { created_at: clock.now() - MIN, customer_name: "Yanina Manrique López" })]);
    expect(eventRow(store, p2.eventId)).toMatchObject({ match_status: "matched", order_id: "A-1" });
    expect(eventRow(store, p1.eventId)!.match_status).not.toBe("matched");
  });

  test("re-pricing a pending order re-evaluates payments of the new amount", async () => {
    await sync(t, scope, [order("A-1", 2500)]);
    const p = await pay(t, scope, { amount: 3000 });
    expect(p.match.status).toBe("unmatched");
    const [o] = await sync(t, scope, [order("A-1", 3000)]);
    expect(o!.status).toBe("matched");
  });

  test("a duplicate from a second phone never matches", async () => {
    const first = await pay(t, scope, { amount: 2500, reference: "OP-1", deviceId: "dev_phone1" });
    const dup = await pay(t, scope, { amount: 2500, reference: "OP-1", deviceId: "dev_phone2" });
    expect(first.match.status).toBe("unmatched");
    expect(dup.match.status).toBe("duplicate");
    const [o] = await sync(t, scope, [order("A-1", 2500, { created_at: clock.now() - MIN })]);
    expect(o!.match!.event_id).toBe(first.eventId); // the duplicate is no rival
    expect(eventRow(store, dup.eventId)!.match_status).toBe("duplicate");
  });

  test("a second phone reporting an already matched payment: duplicate, no second match", async () => {
    await sync(t, scope, [order("A-1", 2500)]);
    const before = matchCount(store);
    const first = await pay(t, scope, { amount: 2500, payerName: "Ana", deviceId: "dev_p1" });
    const second = await pay(t, scope, { amount: 2500, payerName: "Ana", deviceId: "dev_p2", occurredAt: clock.now() - 30_000 });
    expect(first.match.status).toBe("matched");
    expect(second.match.status).toBe("duplicate");
    expect(matchCount(store)).toBe(before + 1);
  });
});

// events_hour_amount_idx is keyed by the hour of occurred_at: every query must name each hour its
// time range touches, or it silently misses payments.
describe("time ranges across hours", () => {
  /** A whole hour at least two hours back, so that every time below is in the past. */
  const pastHour = () => Math.floor(clock.now() / HOUR) * HOUR - 2 * HOUR;

  test("two phones' reports 100 s apart on either side of an hour are one payment", async () => {
    const h = pastHour();
    const first = await pay(t, scope, { amount: 1990, payerName: "Ana Q.", deviceId: "dev_hour_a", occurredAt: h - 50_000 });
    const second = await pay(t, scope, { amount: 1990, payerName: "Ana Q.", deviceId: "dev_hour_b", occurredAt: h + 50_000 });
    expect(first.match.status).toBe("unmatched");
    expect(second.match.status).toBe("duplicate");
    expect(eventRow(store, second.eventId)!.duplicate_of).toBe(first.eventId);
  });

  test("a payment 100 s before an order created just after the hour matches it when the order is synced", async () => {
    const h = pastHour();
    const p = await pay(t, scope, { amount: 3100, occurredAt: h - 90_000 });
    await sync(t, scope, [order("H-1", 3100, { created_at: h + 10_000, expires_at: clock.now() + HOUR })]);
    expect(eventRow(store, p.eventId)).toMatchObject({ match_status: "matched", order_id: "H-1" });
  });

  test("the same, the other way round: the stored report just after the hour, the new one just before", async () => {
    const h = pastHour();
    const first = await pay(t, scope, { amount: 1991, payerName: "Ana Q.", deviceId: "dev_hour_c", occurredAt: h + 50_000 });
    const second = await pay(t, scope, { amount: 1991, payerName: "Ana Q.", deviceId: "dev_hour_d", occurredAt: h - 50_000 });
    expect(second.match.status).toBe("duplicate");
    expect(eventRow(store, second.eventId)!.duplicate_of).toBe(first.eventId);
  });

  test("an order whose window spans many hours finds the payment waiting in the middle of it", async () => {
    const h = pastHour() - 6 * HOUR;
    // Other payments of the shop before and after, so that the hours searched are not narrowed to
    // the one payment's hour by the shop's first and last event.
    await pay(t, scope, { amount: 9900, occurredAt: h - 3 * HOUR });
    await pay(t, scope, { amount: 9901, occurredAt: pastHour() + HOUR });
    const p = await pay(t, scope, { amount: 3200, occurredAt: h + 2 * HOUR + 30 * MIN });
    await sync(t, scope, [order("H-2", 3200, { created_at: h, expires_at: clock.now() + 365 * 24 * HOUR })]);
    expect(eventRow(store, p.eventId)).toMatchObject({ match_status: "matched", order_id: "H-2" });
  });

  test("both ends of the window on the hour: included, and 1 ms beyond them excluded", async () => {
    // A minute before the next hour: the window ends on that hour, still open, and a payment may
    // say it occurred up to 300 s ahead of the box's clock.
    const end = Math.ceil((clock.now() + 2 * MIN) / HOUR) * HOUR;
    clock.set(end - MIN);
    const start = end - 2 * HOUR;
    const before = await pay(t, scope, { amount: 3301, occurredAt: start - 1 });
    const atStart = await pay(t, scope, { amount: 3302, occurredAt: start });
    const atEnd = await pay(t, scope, { amount: 3303, occurredAt: end });
    const after = await pay(t, scope, { amount: 3304, occurredAt: end + 1 });
    // created_at − 120 s is exactly the start hour; expires_at is exactly the end hour.
    const window = { created_at: start + 120_000, expires_at: end };
    await sync(t, scope, [3301, 3302, 3303, 3304].map((amount) => order(`W-${amount}`, amount, window)));
    expect(eventRow(store, before.eventId)!.match_status).toBe("unmatched");
    expect(eventRow(store, atStart.eventId)).toMatchObject({ match_status: "matched", order_id: "W-3302" });
    expect(eventRow(store, atEnd.eventId)).toMatchObject({ match_status: "matched", order_id: "W-3303" });
    expect(eventRow(store, after.eventId)!.match_status).toBe("unmatched");
  });
});

describe("expiry", () => {
  test("exactly at expires_at an order still matches; 1 ms later it does not", async () => {
    const now = clock.now();
    await sync(t, scope, [order("A-1", 2500, { created_at: now - HOUR, expires_at: now + MIN }), order("A-2", 2600, { created_at: now - HOUR, expires_at: now + MIN })]);
    clock.set(now + MIN);
    expect((await pay(t, scope, { amount: 2500 })).match.status).toBe("matched");
    clock.set(now + MIN + 1);
    expect((await pay(t, scope, { amount: 2600, occurredAt: now + MIN })).match.status).toBe("unmatched");
    clock.set(now);
  });

  test("an expired order stops matching without the sweeper, and the sweeper settles what it kept ambiguous", async () => {
    const now = clock.now();
    await sync(t, scope, [
      order("A-1", 2500, { created_at: now - HOUR, expires_at: now + MIN }),
      order("A-2", 2500, { created_at: now - HOUR, expires_at: now + HOUR }),
    ]);
    const p = await pay(t, scope, { amount: 2500 });
    expect(p.match.status).toBe("ambiguous");
    clock.set(now + MIN + 1);
    // reads as expired at once
    expect((await sync(t, scope, [order("A-1", 2500)]))[0]!.status).toBe("expired");
    expect(orderRow(store, scope, "A-1")!.status).toBe("pending"); // not recorded yet: nothing changed
    const swept = await sweepExpiredOrders(store.db, t.writer, clock.now());
    expect(swept).toBeGreaterThanOrEqual(1);
    expect(orderRow(store, scope, "A-1")!.status).toBe("expired");
    expect(eventRow(store, p.eventId)).toMatchObject({ match_status: "matched", order_id: "A-2" });
    expect(await sweepExpiredOrders(store.db, t.writer, clock.now())).toBe(0); // idempotent
    clock.set(now);
  });

  test("the sweeper works through any number of orders, in batches", async () => {
    const now = clock.now();
    await sync(t, scope, Array.from({ length: 450 }, (_, i) => order(`S-${i}`, 10_000 + i, { created_at: now - HOUR, expires_at: now + MIN })));
    await sweepExpiredOrders(store.db, t.writer, now + MIN);
    expect(orderRow(store, scope, "S-0")!.status).toBe("pending"); // exactly at expires_at: still pending
    const swept = await sweepExpiredOrders(store.db, t.writer, now + MIN + 1);
    expect(swept).toBeGreaterThanOrEqual(450);
    expect(orderRow(store, scope, "S-449")!.status).toBe("expired");
    expect(await sweepExpiredOrders(store.db, t.writer, now + MIN + 1)).toBe(0);
  });

  test("extending an expired order reopens it and matches what waited", async () => {
    const now = clock.now();
    await sync(t, scope, [order("A-1", 2500, { created_at: now - 2 * HOUR, expires_at: now - HOUR })]);
    const p = await pay(t, scope, { amount: 2500, occurredAt: now - 90 * MIN });
    expect(p.match.status).toBe("unmatched");
    const [o] = await sync(t, scope, [order("A-1", 2500, { created_at: now - 2 * HOUR, expires_at: now + HOUR })]);
    expect(o!.status).toBe("matched");
  });
});

describe("unique amounts", () => {
  test("two orders of S/ 25.00 get 2500 and 2501; re-syncs keep them; a payment of 2501 matches the second", async () => {
    const [a, b] = await sync(t, scope, [order("A-1", 2500, { unique_amount: true }), order("A-2", 2500, { unique_amount: true })]);
    expect([a!.expected_amount, b!.expected_amount]).toEqual([2500, 2501]);
    clock.advance(1000);
    // re-sent in the other order: still the same amounts
    const [b2, a2] = await sync(t, scope, [order("A-2", 2500, { unique_amount: true }), order("A-1", 2500, { unique_amount: true })]);
    expect([a2!.expected_amount, b2!.expected_amount]).toEqual([2500, 2501]);
    const p = await pay(t, scope, { amount: 2501 });
    expect(p.match).toEqual({ status: "matched", order_id: "A-2" });
    // 2501 is free again (A-2 is no longer pending): the smallest free k is reused
    const [c] = await sync(t, scope, [order("A-3", 2500, { unique_amount: true })]);
    expect(c!.expected_amount).toBe(2501);
  });

  test("a plain order's amount counts as held", async () => {
    const [, u] = await sync(t, scope, [order("P-1", 4000), order("U-1", 4000, { unique_amount: true })]);
    expect(u!.expected_amount).toBe(4001);
  });

  test("none free: 409 unique_amount_unavailable with order_id, and nothing of the batch is stored", async () => {
    await sync(t, scope, Array.from({ length: 100 }, (_, k) => order(`H-${k}`, 7000 + k)));
    let error: unknown;
    try {
      await sync(t, scope, [order("NEW-1", 100), order("U-9", 7000, { unique_amount: true })]);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).code).toBe("unique_amount_unavailable");
    expect((error as DomainError).extra).toEqual({ order_id: "U-9" });
    expect(orderRow(store, scope, "NEW-1")).toBeNull();
  });
});

describe("decideNewEvent + recordAutoMatch seam", () => {
  const payment = { amount: 2500, currency: "PEN", payerName: null, securityCode: null };

  test("decideNewEvent reads the orders only and writes nothing", async () => {
    await sync(t, scope, [order("A-1", 2500), order("B-1", 3100), order("B-2", 3100)]);
    const matchesBefore = matchCount(store);
    const decide = (amount: number) =>
      store.db.transaction((tx) => decideNewEvent(tx as unknown as Db, clock.now(), scope, { ...payment, amount, occurredAt: clock.now() }));
    expect(decide(2500)).toEqual({ status: "matched", orderId: "A-1" });
    expect(decide(3100)).toEqual({ status: "ambiguous", orderId: null });
    expect(decide(999)).toEqual({ status: "unmatched", orderId: null });
    expect(orderRow(store, scope, "A-1")!.status).toBe("pending");
    expect(matchCount(store)).toBe(matchesBefore);
  });

  test("recordAutoMatch writes the order and the match row, and refuses an order that is no longer open", async () => {
    await sync(t, scope, [order("A-1", 2500)]);
    const matchesBefore = matchCount(store);
    const insert = (eventId: string) =>
      store.sqlite
        .query<{ seq: number }, any[]>(
          `INSERT INTO events (event_id, device_id, tenant_id, environment, kind, source, amount, currency, occurred_at, received_at,
            body_hash, response_status, response_body, match_status, order_id) VALUES (?, NULL, ?, ?, 'payment.received', 'yape', 2500, 'PEN', ?, ?, 'h', 201, '{}', 'matched', 'A-1') RETURNING seq`,
        )
        .get(eventId, scope.tenantId, scope.environment, clock.now(), clock.now())!.seq;
    const event = (eventId: string, seq: number) => ({
      seq,
      ...scope,
      eventId,
      deviceId: null,
      amount: 2500,
      currency: "PEN",
      source: "yape",
      payerName: null,
      securityCode: null,
      reference: null,
      occurredAt: clock.now(),
    });
    const row = store.db.transaction((tx) => recordAutoMatch(tx as unknown as Db, clock.now(), event("direct-1", insert("direct-1")), "A-1"));
    expect(row).toMatchObject({ orderId: "A-1", eventId: "direct-1", method: "auto", amount: 2500 });
    expect(orderRow(store, scope, "A-1")).toMatchObject({ status: "matched", match_id: row.id });
    expect(() =>
      store.db.transaction((tx) => recordAutoMatch(tx as unknown as Db, clock.now(), event("direct-2", insert("direct-2")), "A-1")),
    ).toThrow(MatchConflictError);
    expect(eventRow(store, "direct-2")).toBeNull(); // rolled back with the transaction
    expect(matchCount(store)).toBe(matchesBefore + 1);
  });
});

test("match ids keep the shape mat_ + 20 base62 and sort in the order the matches were made", async () => {
  await sync(t, scope, [order("ID-1", 1111), order("ID-2", 2222)]);
  await pay(t, scope, { amount: 1111 });
  clock.advance(1);
  await pay(t, scope, { amount: 2222 });
  const first = orderRow(store, scope, "ID-1")!.match_id!;
  const second = orderRow(store, scope, "ID-2")!.match_id!;
  expect(first).toMatch(/^mat_[0-9A-Za-z]{20}$/);
  expect(second).toMatch(/^mat_[0-9A-Za-z]{20}$/);
  // Later sorts later, so matches_id_uq grows at its end instead of at a random page.
  expect(first < second).toBe(true);
});

describe("query plans: matching reads indexes, never scans", () => {
  const plan = (sqlText: string, params: unknown[]) => {
    // Prepared and finalized here: an EXPLAIN of an UPDATE left cached by query() kept a statement
    // open, and the next transaction could not commit.
    const stmt = store.sqlite.prepare<{ detail: string }, any[]>(`EXPLAIN QUERY PLAN ${sqlText}`);
    try {
      return stmt
        .all(...params)
        .map((r) => r.detail)
        .join("\n");
    } finally {
      stmt.finalize();
    }
  };

  const s = statements(store.db);
  const cases: [string, { getQuery(): { sql: string; params: unknown[] } }, RegExp][] = [
    [
      "candidate orders",
      { getQuery: () => ({ sql: MATCHING_SQL.candidateOrders, params: [] }) },
      /^SEARCH orders USING COVERING INDEX orders_pending_candidates_idx \(tenant_id=\? AND environment=\? AND expected_amount=\? AND expires_at>\?\)$/,
    ],
    [
      "waiting payments",
      { getQuery: () => ({ sql: MATCHING_SQL.waitingPayments, params: [] }) },
      /^SEARCH events USING INDEX events_hour_amount_idx \(tenant_id=\? AND environment=\? AND <expr>=\? AND amount=\? AND occurred_at>\? AND occurred_at<\?\)\n/,
    ],
    [
      "first and last hour of a scope's events",
      { getQuery: () => ({ sql: MATCHING_SQL.eventHours, params: [] }) },
      /SEARCH events USING COVERING INDEX events_hour_amount_idx \(tenant_id=\? AND environment=\?\)/,
    ],
    [
      "status changes of a re-evaluation",
      { getQuery: () => ({ sql: MATCHING_SQL.setWaitingStatus, params: [] }) },
      /^SEARCH events USING INTEGER PRIMARY KEY \(rowid=\?\)\nLIST SUBQUERY 1\nSCAN json_each VIRTUAL TABLE/,
    ],
    ["expired pending orders", s.expiredPending, /SEARCH orders USING INDEX orders_pending_expiry_idx \(expires_at<\?\)/],
    ["order by key", s.orderByKey, /SEARCH orders USING INDEX sqlite_autoindex_orders_1/],
    ["event by seq", s.eventBySeq, /SEARCH events USING INTEGER PRIMARY KEY/],
  ];
  test.each(cases)("%s", (_n, stmt, expected) => {
    const q = stmt.getQuery();
    const text = plan(q.sql, q.params.map(() => 1));
    expect(text).toMatch(expected);
    // The only scans allowed are of lists the statements build themselves: the waiting-payments
    // query's hours, and the seqs of the status changes.
    expect(text.replace(/\bSCAN (CONSTANT ROW|hours|json_each)\b/g, "")).not.toMatch(/\bSCAN\b/);
  });
});
