// Re-evaluation of waiting payments (contract §10) at scale: reevaluateWaiting reads each order's
// waiting payments once and keeps its decision until a match changes it. These tests hold it to
// the plain statement of the rule, settling one payment at a time and asking the order every time,
// on random states written straight into the database; and check that a backlog is read once.
import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import fc from "fast-check";
import { chooseOrder, choosePayment, inWindow, type OrderFacts, type PaymentFacts } from "../src/matching/engine";
import { reevaluateWaiting, type OrderShape } from "../src/matching/service";
import { syncOrders } from "../src/connector/orders.service";
import { INLINE_STATUS_WRITES } from "../src/matching/status-writes";
import { matchingStatements as statements } from "../src/matching/store";
import type { Db } from "../src/store/db";
import { createTenant } from "../src/tenants/service";
import { makeTestApp } from "./support/harness";
import { order, pay, sync, type Scope } from "./support/connector";

const t = await makeTestApp();
afterAll(() => t.close());
const { store, clock } = t;
const MIN = 60_000;
const HOUR = 60 * MIN;

type Waiting = PaymentFacts & { status: "unmatched" | "ambiguous" };

/**
 * The rule as the contract states it, over memory: payments in the order they were stored, each
 * settled on the state at that moment (its choice among the pending orders; that order's choice
 * among every waiting payment), passes until one makes no match.
 */
function settleOneByOne(orders: OrderFacts[], waiting: Waiting[], shapes: OrderShape[], now: number) {
  const pending = [...orders];
  const stillWaiting = [...waiting];
  const concerned = (p: PaymentFacts) => shapes.some((s) => s.expectedAmount === p.amount && inWindow(s, p.occurredAt));
  const queue = stillWaiting.filter(concerned).sort((a, b) => a.seq - b.seq);
  const matches: [string, number][] = [];
  const status = new Map(waiting.map((p) => [p.seq, p.status as string]));
  for (let progress = true; progress; ) {
    progress = false;
    for (const p of [...queue]) {
      const mine = chooseOrder(p, pending, now);
      let outcome: string = mine.outcome;
      if (mine.outcome === "matched") {
        const theirs = choosePayment(mine.pick, stillWaiting, now);
        outcome = theirs.outcome === "matched" && theirs.pick.seq === p.seq ? "matched" : "ambiguous";
      }
      status.set(p.seq, outcome);
      if (outcome !== "matched" || mine.outcome !== "matched") continue;
      matches.push([mine.pick.id, p.seq]);
      pending.splice(pending.indexOf(mine.pick), 1);
      stillWaiting.splice(stillWaiting.indexOf(p), 1);
      queue.splice(queue.indexOf(p), 1);
      progress = true;
    }
  }
  return { matches: matches.sort(), status };
}

// Small sets of amounts, names, codes and minute-grid times, so that candidates collide often.
const amountArb = fc.constantFrom(2500, 2500, 2501, 3000);
const nameArb = fc.constantFrom(null, "Ana Soto", "Ana Silva", "Beto Ruiz");
const payerArb = fc.constantFrom(null, "Ana S*", "Ana", "Beto R*", "Carla");
const codeArb = fc.constantFrom(null, null, null, "111", "222");
const orderArb = fc.record({
  amount: amountArb,
  name: nameArb,
  code: codeArb,
  created: fc.integer({ min: -40, max: 5 }).map((m) => m * MIN),
  ttl: fc.constantFrom(2, 10, 30, 90).map((m) => m * MIN),
});
const paymentArb = fc.record({
  amount: amountArb,
  payer: payerArb,
  code: codeArb,
  occurred: fc.integer({ min: -45, max: 5 }).map((m) => m * MIN),
  status: fc.constantFrom("unmatched" as const, "ambiguous" as const),
});

/** The orders matched in this test's shop, in the order their payments were stored. */
const matchedOrdersInPaymentOrder = (): string[] =>
  store.sqlite
    .query<{ order_id: string }, [string]>("SELECT order_id FROM matches WHERE tenant_id = ? ORDER BY event_seq")
    .all(scope.tenantId)
    .map((r) => r.order_id);

let scope: Scope;
beforeEach(() => {
  scope = { tenantId: createTenant(store.db, clock, "Bodega").tenant_id, environment: "live" };
});

function insertOrder(id: string, o: { amount: number; name: string | null; code: string | null; created: number; ttl: number }, now: number) {
  store.sqlite
    .query(
      `INSERT INTO orders (tenant_id, environment, id, amount, expected_amount, currency, status, created_at, expires_at, customer_name, security_code, updated_at)
       VALUES (?, ?, ?, ?, ?, 'PEN', 'pending', ?, ?, ?, ?, ?)`,
    )
    .run(scope.tenantId, scope.environment, id, o.amount, o.amount, now + o.created, now + o.created + o.ttl, o.name, o.code, now);
}

function insertWaiting(i: number, p: { amount: number; payer: string | null; code: string | null; occurred: number; status: string }, now: number): number {
  return store.sqlite
    .query<{ seq: number }, (string | number | null)[]>(
      `INSERT INTO events (event_id, device_id, tenant_id, environment, kind, source, amount, currency, payer_name, security_code,
         occurred_at, received_at, body_hash, response_status, response_body, match_status)
       VALUES (?, 'dev_x', ?, ?, 'payment.received', 'yape', ?, 'PEN', ?, ?, ?, ?, 'h', 201, '{}', ?) RETURNING seq`,
    )
    .get(`e-${scope.tenantId}-${i}`, scope.tenantId, scope.environment, p.amount, p.payer, p.code, now + p.occurred, now, p.status)!.seq;
}

describe("reevaluateWaiting", () => {
  test("makes the matches and leaves the statuses that settling one payment at a time makes", () => {
    fc.assert(
      fc.property(
        fc.array(orderArb, { minLength: 1, maxLength: 6 }),
        fc.array(paymentArb, { minLength: 1, maxLength: 14 }),
        fc.array(fc.nat(), { minLength: 1, maxLength: 3 }),
        (orders, payments, shapePicks) => {
          scope = { tenantId: createTenant(store.db, clock, "Bodega").tenant_id, environment: "live" };
          const now = clock.now();
          orders.forEach((o, i) => insertOrder(`O-${i}`, o, now));
          const waiting: Waiting[] = payments.map((p, i) => ({
            seq: insertWaiting(i, p, now),
            amount: p.amount,
            currency: "PEN",
            occurredAt: now + p.occurred,
            payerName: p.payer,
            securityCode: p.code,
            status: p.status,
          }));
          const facts: OrderFacts[] = orders.map((o, i) => ({
            id: `O-${i}`,
            expectedAmount: o.amount,
            currency: "PEN",
            status: "pending",
            createdAt: now + o.created,
            expiresAt: now + o.created + o.ttl,
            customerName: o.name,
            securityCode: o.code,
          }));
          // The orders that "changed": any of them, possibly twice.
          const shapes = shapePicks.map((k) => facts[k % facts.length]!);
          const expected = settleOneByOne(facts, waiting, shapes, now);

          const made = store.db.transaction((tx) => reevaluateWaiting(tx as unknown as Db, scope, shapes, now));

          const matches = store.sqlite
            .query<{ order_id: string; event_seq: number }, [string]>("SELECT order_id, event_seq FROM matches WHERE tenant_id = ? ORDER BY order_id, event_seq")
            .all(scope.tenantId)
            .map((m) => [m.order_id, m.event_seq]);
          expect(made).toBe(expected.matches.length);
          expect(matches).toEqual(expected.matches);
          const statuses = new Map(
            store.sqlite
              .query<{ seq: number; match_status: string }, [string]>("SELECT seq, match_status FROM events WHERE tenant_id = ?")
              .all(scope.tenantId)
              .map((e) => [e.seq, e.match_status]),
          );
          expect(statuses).toEqual(expected.status);
        },
      ),
      { numRuns: 800 },
    );
  });

  test("an order synced late reads its backlog of waiting payments once, not once per payment", async () => {
    // 300 payments of S/ 25.00 over the last five hours, before any order: all wait, unmatched.
    const now = clock.now();
    for (let i = 0; i < 300; i++) await pay(t, scope, { amount: 2500, occurredAt: now - 5 * HOUR + i * MIN });
    const s = statements(store.db);
    const read = s.waitingPayments.all.bind(s.waitingPayments);
    let reads = 0;
    s.waitingPayments.all = ((...args: Parameters<typeof read>) => (reads++, read(...args))) as typeof s.waitingPayments.all;
    try {
      // The shop syncs an order created six hours ago: each of the 300 payments chooses it (the only
      // candidate), and the order, seeing 300, chooses none of them. Run here, on this connection,
      // so that its statements can be counted (serve runs the same function on the writer thread).
      store.db.transaction((tx) => syncOrders(tx, scope, [order("LATE-1", 2500, { created_at: now - 6 * HOUR, expires_at: now + HOUR })], now));
    } finally {
      s.waitingPayments.all = read;
    }
    expect(reads).toBe(2); // the changed order's window, then the order's own decision
    const byStatus = store.sqlite
      .query<{ match_status: string; n: number }, [string]>("SELECT match_status, count(*) AS n FROM events WHERE tenant_id = ? GROUP BY 1")
      .all(scope.tenantId);
    expect(byStatus).toEqual([{ match_status: "ambiguous", n: 300 }]);
  });

  test("a match made during re-evaluation is seen by the payments after it, in the same pass", async () => {
    // Two payments of S/ 30.00 wait; two orders arrive, one carrying the first payment's code.
    const now = clock.now();
    await pay(t, scope, { amount: 3000, occurredAt: now - 2 * MIN, securityCode: "111" });
    await pay(t, scope, { amount: 3000, occurredAt: now - MIN });
    await sync(t, scope, [
      order("C-1", 3000, { created_at: now - 10 * MIN, security_code: "111" }),
      order("C-2", 3000, { created_at: now - 10 * MIN }),
    ]);
    // The coded payment takes C-1 by its code. C-1 is then no longer pending, so the second payment,
    // next in the same pass, has C-2 as its only candidate, and C-2 sees only it.
    expect(matchedOrdersInPaymentOrder()).toEqual(["C-1", "C-2"]);
  });

  test("a match removes its payment from the decisions other orders made before it", async () => {
    // Q waits since 20 min ago, P (code 111) since 1 min ago. Order B (no code, created 30 min ago)
    // and order A (code 111, created 5 min ago) arrive together. Q is settled first: its only
    // candidate is B, and B, seeing Q and P, is ambiguous. Then P takes A by its code. B's earlier
    // decision counted P, which no longer waits: asked again in the next pass, B sees only Q.
    const now = clock.now();
    await pay(t, scope, { amount: 2500, occurredAt: now - 20 * MIN });
    await pay(t, scope, { amount: 2500, occurredAt: now - MIN, securityCode: "111" });
    await sync(t, scope, [
      order("A", 2500, { created_at: now - 5 * MIN, security_code: "111" }),
      order("B", 2500, { created_at: now - 30 * MIN }),
    ]);
    expect(matchedOrdersInPaymentOrder()).toEqual(["B", "A"]);
  });
});

describe("a long backlog: status changes past the first thousand are written in later writes", () => {
  const N = INLINE_STATUS_WRITES + 500;
  /** N payments of S/ 77.00 waiting, unmatched, over the last ten hours (rows as ingestion writes them). */
  function backlog(own: Scope): void {
    const insert = store.sqlite.prepare(
      `INSERT INTO events (event_id, device_id, tenant_id, environment, kind, source, amount, currency, occurred_at, received_at,
         body_hash, response_status, response_body, match_status, recent)
       VALUES (?, NULL, ?, ?, 'payment.received', 'yape', 7700, 'PEN', ?, ?, 'h', 201, '{}', 'unmatched', 1)`,
    );
    const now = clock.now();
    store.sqlite.transaction(() => {
      for (let i = 0; i < N; i++) insert.run(`backlog-${i}`, own.tenantId, own.environment, now - 10 * HOUR + i * 10_000, now);
    })();
  }
  const statuses = (own: Scope) =>
    Object.fromEntries(
      store.sqlite
        .query<{ match_status: string; n: number }, [string]>("SELECT match_status, count(*) AS n FROM events WHERE tenant_id = ? AND amount = 7700 GROUP BY 1")
        .all(own.tenantId)
        .map((r) => [r.match_status, r.n]),
    );
  async function eventually(own: Scope, want: Record<string, number>): Promise<void> {
    for (let i = 0; i < 500 && JSON.stringify(statuses(own)) !== JSON.stringify(want); i++) await new Promise((r) => setTimeout(r, 10));
    expect(statuses(own)).toEqual(want);
  }

  test("the sync's own commit writes the first thousand; the writer thread writes the rest after it", async () => {
    const own = { tenantId: createTenant(store.db, clock, "Backlog").tenant_id, environment: "live" as const };
    backlog(own);
    const now = clock.now();
    // An order created eleven hours ago: every payment chooses it, and it chooses none of them.
    const [o] = await sync(t, own, [order("LATE-7700", 7700, { created_at: now - 11 * HOUR, expires_at: now + HOUR })]);
    expect(o!.status).toBe("pending");
    const right = statuses(own);
    expect(right.ambiguous).toBeGreaterThanOrEqual(INLINE_STATUS_WRITES); // at least the sync's own
    expect(right.ambiguous! + (right.unmatched ?? 0)).toBe(N);
    await eventually(own, { ambiguous: N });
  });

  test("a newer decision replaces one not yet written: cancelling at once leaves every payment unmatched", async () => {
    const own = { tenantId: createTenant(store.db, clock, "Backlog 2").tenant_id, environment: "live" as const };
    backlog(own);
    const now = clock.now();
    const late = order("LATE-7700", 7700, { created_at: now - 11 * HOUR, expires_at: now + HOUR });
    // Handed over together: one group commit, before any deferred status is written.
    await Promise.all([sync(t, own, [late]), sync(t, own, [{ ...late, status: "cancelled" }])]);
    await t.writer.idle();
    await eventually(own, { unmatched: N });
    // …and stays so: no late write of "ambiguous" arrives.
    await new Promise((r) => setTimeout(r, 50));
    expect(statuses(own)).toEqual({ unmatched: N });
  });

  test("each status change written later has its payment.updated; a payment matched before its deferred write gets none", async () => {
    const own = { tenantId: createTenant(store.db, clock, "Backlog 3").tenant_id, environment: "live" as const };
    backlog(own);
    const now = clock.now();
    await t.writer.run("createWebhookEndpoint", { scope: own, input: { url: "http://127.0.0.1:9/hooks", events: ["payment.updated"] }, sealedSecret: "unused", now });
    await sync(t, own, [order("BY-HAND", 100)]);
    const last = `backlog-${N - 1}`; // the newest payment: its change is among the deferred ones
    // In one group commit: the late order (1 000 changes written now, the rest deferred), then a
    // person matches the newest payment, before the deferred write runs.
    await Promise.all([
      sync(t, own, [order("LATE-7700", 7700, { created_at: now - 11 * HOUR, expires_at: now + HOUR })]),
      t.writer.run("manualMatch", { scope: own, request: { order_id: "BY-HAND", event_id: last }, now }),
    ]);
    await eventually(own, { ambiguous: N - 1, matched: 1 });
    const updates = store.sqlite
      .query<{ body: string }, [string]>("SELECT body FROM webhook_messages WHERE tenant_id = ? AND type = 'payment.updated'")
      .all(own.tenantId)
      .map((r) => JSON.parse(r.body).data as { event_id: string; match_status: string });
    expect(updates.filter((u) => u.event_id === last).map((u) => u.match_status)).toEqual(["matched"]);
    expect(updates.filter((u) => u.match_status === "ambiguous")).toHaveLength(N - 1);
  });
});
