// events_hour_amount_idx is keyed by the hour of occurred_at, so the two statements that read it
// name every hour their range touches. Over random payments spread across hour boundaries and
// random ranges, both must return exactly what a plain filter over all of the shop's events returns.
import { afterAll, expect, test } from "bun:test";
import fc from "fast-check";
import { matchingStatements as statements, waitingPaymentsFor, WAITING } from "../src/matching/store";
import { ingestStatementsOf } from "../src/payments/store-event";
import { DUPLICATE_WINDOW_MS } from "../src/payments/duplicates";
import { hourOf, HOUR_MS } from "../src/store/schema";
import { createTenant } from "../src/tenants/service";
import { makeTestApp } from "./support/harness";

const t = await makeTestApp();
afterAll(() => t.close());
const { store, clock } = t;

interface Stored {
  seq: number;
  amount: number;
  occurredAt: number;
  matchStatus: string;
  source: string;
  payerName: string | null;
  deviceId: string | null;
}

/** Around a few hour boundaries, and exactly on them, ±1 ms and ±120 000 ms. */
const BASE = Math.floor(clock.now() / HOUR_MS) * HOUR_MS - 10 * HOUR_MS;
const instantArb = fc.oneof(
  fc.integer({ min: BASE - 2 * HOUR_MS, max: BASE + 8 * HOUR_MS }),
  fc
    .tuple(fc.integer({ min: -2, max: 8 }), fc.constantFrom(0, 1, -1, DUPLICATE_WINDOW_MS, -DUPLICATE_WINDOW_MS, DUPLICATE_WINDOW_MS + 1))
    .map(([h, d]) => BASE + h * HOUR_MS + d),
);
const paymentArb = fc.record({
  amount: fc.constantFrom(500, 500, 700),
  occurredAt: instantArb,
  matchStatus: fc.constantFrom("unmatched", "ambiguous", "matched", "duplicate"),
  source: fc.constantFrom("yape", "plin"),
  payerName: fc.constantFrom("Ana", null),
  deviceId: fc.constantFrom("dev_a", "dev_b", null),
});

let shops = 0;
function storeShop(payments: Omit<Stored, "seq">[]): { scope: { tenantId: string; environment: "live" }; stored: Stored[] } {
  const scope = { tenantId: createTenant(store.db, clock, `Bodega ${++shops}`).tenant_id, environment: "live" as const };
  const insert = store.sqlite.prepare<{ seq: number }, any[]>(
    `INSERT INTO events (event_id, device_id, tenant_id, environment, kind, source, amount, currency, payer_name, occurred_at,
       received_at, body_hash, response_status, response_body, match_status)
     VALUES (?, ?, ?, ?, 'payment.received', ?, ?, 'PEN', ?, ?, ?, 'h', 201, '{}', ?) RETURNING seq`,
  );
  const stored = payments.map((p, i) => {
    const { seq } = insert.get(`ev-${shops}-${i}`, p.deviceId, scope.tenantId, scope.environment, p.source, p.amount, p.payerName, p.occurredAt, clock.now(), p.matchStatus)!;
    return { seq, ...p };
  });
  return { scope, stored };
}

const seqs = (rows: { seq: number }[]) => rows.map((r) => r.seq).sort((a, b) => a - b);

test("waiting payments of an order's window: the same rows as a plain filter", () => {
  fc.assert(
    fc.property(
      fc.array(paymentArb, { maxLength: 40 }),
      fc.array(fc.record({ amount: fc.constantFrom(500, 700), createdAt: instantArb, length: fc.integer({ min: 0, max: 12 * HOUR_MS }) }), {
        minLength: 1,
        maxLength: 5,
      }),
      (payments, windows) => {
        const { scope, stored } = storeShop(payments);
        const s = statements(store.db);
        for (const w of windows) {
          const order = { expectedAmount: w.amount, createdAt: w.createdAt, expiresAt: w.createdAt + w.length };
          const expected = stored.filter(
            (p) =>
              p.amount === w.amount &&
              order.createdAt - 120_000 <= p.occurredAt &&
              p.occurredAt <= order.expiresAt &&
              (WAITING as string[]).includes(p.matchStatus),
          );
          expect(seqs(waitingPaymentsFor(s, scope, order))).toEqual(seqs(expected));
        }
      },
    ),
    { numRuns: 150 },
  );
});

test("duplicate candidates by details (±120 000 ms, same source, amount and payer, another phone): the same rows as a plain filter", () => {
  const stmts = ingestStatementsOf(store);
  fc.assert(
    fc.property(fc.array(paymentArb, { maxLength: 40 }), fc.array(paymentArb, { minLength: 1, maxLength: 5 }), (payments, incoming) => {
      const { scope, stored } = storeShop(payments);
      for (const r of incoming) {
        const deviceId = r.deviceId ?? "dev_c";
        const from = r.occurredAt - DUPLICATE_WINDOW_MS;
        const to = r.occurredAt + DUPLICATE_WINDOW_MS;
        const got = stmts.dupByDetails.all(scope.tenantId, scope.environment, hourOf(from), hourOf(to), r.source, r.amount, from, to, r.payerName, deviceId);
        const expected = stored.filter(
          (p) =>
            p.source === r.source &&
            p.amount === r.amount &&
            from <= p.occurredAt &&
            p.occurredAt <= to &&
            p.payerName === r.payerName &&
            p.deviceId !== null &&
            p.deviceId !== deviceId,
        );
        expect(seqs(got)).toEqual(seqs(expected));
      }
    }),
    { numRuns: 150 },
  );
});
