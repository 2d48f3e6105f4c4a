// Property-based tests of matching (contract §10) over random interleavings of order syncs,
// cancellations, expiries (clock moves and sweeps), payment events (with repeats and duplicates
// from other phones), manual matches and moves of recent events into the old partition
// (payments/recent-events.ts), across two tenants and both environments.
//
// After every step:
// - no order is matched twice and no event is matched twice, and the rows agree with the matches;
// - no match crosses a tenant or environment; duplicates never match;
// - every automatic match has equal amounts, lies inside the order's window and before expiry;
// - a payment that just arrived is decided by §10's rules 1–5 from its own side only: its outcome
//   (matched to the one order the rules pick, ambiguous, or unmatched) is exactly what an
//   independent implementation of the rules below says;
// - a waiting payment matched on re-evaluation (orders synced, cancelled, expired) was the only
//   choice from the payment's side and from the order's side: an order that could take two waiting
//   payments is left for a person.
import { afterAll, expect, test } from "bun:test";
import fc from "fast-check";
import type { OrderInput } from "../src/connector/orders.service";
import { DomainError } from "../src/errors";
import { sweepExpiredOrders } from "../src/matching/service";
import { ingestPayment } from "../src/payments/ingest";
import { moveRecentEvents } from "../src/payments/recent-events";
import type { PaymentEvent } from "../src/payments/model";
import { createTenant } from "../src/tenants/service";
import { makeTestApp } from "./support/harness";
import { paymentEvent, type Scope } from "./support/connector";

const t = await makeTestApp();
afterAll(() => t.close());
const { store, clock } = t;
const MIN = 60_000;

// ---- operations

// Few amounts, names and codes, and times on a one-minute grid (with an occasional ±1 ms) so that
// collisions, ties and the exact boundaries of the window and of expiry come up often.
const amountArb = fc.constantFrom(2500, 2500, 2501, 3000);
const jitterArb = fc.constantFrom(0, 0, 0, 0, 1, -1);
const scopeArb = fc.constantFrom(0, 0, 0, 1, 2); // mostly one world, so that its orders and payments meet
const orderIdArb = fc.constantFrom("O-1", "O-2", "O-3", "O-4", "O-5");

type Op =
  | { kind: "sync"; scope: number; orders: { id: string; amount: number; cancelled: boolean; name: string | null; code: string | null; unique: boolean; created: number; ttl: number }[] }
  | { kind: "pay"; scope: number; amount: number; payer: string | null; code: string | null; reference: string | null; device: number | null; occurred: number; source: string }
  | { kind: "repeat"; index: number; otherDevice: boolean }
  | { kind: "advance"; ms: number }
  | { kind: "sweep" }
  | { kind: "manual"; scope: number; order: string; event: number }
  | { kind: "fold" };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant("sync" as const),
      scope: scopeArb,
      orders: fc.array(
        fc.record({
          id: orderIdArb,
          amount: amountArb,
          cancelled: fc.constantFrom(false, false, false, true),
          name: fc.constantFrom(null, "Ana Soto", "Ana Silva", "Beto Ruiz", "José Pérez"),
          code: fc.constantFrom(null, null, "111", "222"),
          unique: fc.constantFrom(false, false, false, true),
          created: fc.tuple(fc.integer({ min: -6, max: 3 }), jitterArb).map(([m, j]) => m * MIN + j),
          ttl: fc.constantFrom(1, 2, 5, 30).map((m) => m * MIN),
        }),
        { minLength: 1, maxLength: 4 },
      ),
    }),
  },
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant("pay" as const),
      scope: scopeArb,
      amount: amountArb,
      payer: fc.constantFrom(null, "Ana S*", "Ana", "ana s*", "Beto R*", "Jose Perez", "Carla"),
      code: fc.constantFrom(null, null, "111", "222"),
      reference: fc.constantFrom(null, null, "R-1", "R-2"),
      device: fc.constantFrom(null, 0, 1, 2),
      occurred: fc.tuple(fc.integer({ min: -8, max: 2 }), jitterArb).map(([m, j]) => m * MIN + j),
      source: fc.constantFrom("yape", "plin"),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("repeat" as const), index: fc.nat(), otherDevice: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("advance" as const), ms: fc.tuple(fc.constantFrom(0, 1, 2, 5), jitterArb).map(([m, j]) => Math.max(0, m * MIN + j)) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("sweep" as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("manual" as const), scope: scopeArb, order: orderIdArb, event: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("fold" as const) }) },
);

// ---- an independent statement of §10's rules (not the engine's code)

const fold = (s: string) => s.normalize("NFD").replace(/[\u0300-\u036f]/g, "").toLowerCase();
function fits(payer: string | null, customer: string | null): boolean {
  if (!payer || !customer) return false;
  const p = fold(payer).split(/\s+/).filter(Boolean).map((w) => w.replace(/\*.*$/, ""));
  const c = fold(customer).split(/\s+/).filter(Boolean);
  return p.length > 0 && p.some((w) => w !== "") && p.length <= c.length && p.every((w, i) => c[i]!.startsWith(w));
}
function onlyChoice<T>(cands: T[], hasCode: (c: T) => boolean, nameFits: (c: T) => boolean): T | null {
  const coded = cands.filter(hasCode);
  if (coded.length === 1) return coded[0]!;
  if (cands.length === 1) return cands[0]!;
  const named = cands.filter(nameFits);
  return cands.length > 1 && named.length === 1 ? named[0]! : null;
}

interface OrderRow { tenant_id: string; environment: string; id: string; expected_amount: number; currency: string; status: string; created_at: number; expires_at: number; customer_name: string | null; security_code: string | null; match_id: string | null }
interface EventRow { seq: number; tenant_id: string; environment: string; amount: number; currency: string; occurred_at: number; payer_name: string | null; security_code: string | null; match_status: string; order_id: string | null }
interface MatchRow { seq: number; tenant_id: string; environment: string; order_id: string; event_seq: number; method: string; amount: number; matched_at: number }

const candidate = (o: OrderRow, e: EventRow) =>
  o.tenant_id === e.tenant_id &&
  o.environment === e.environment &&
  o.expected_amount === e.amount &&
  o.currency === e.currency &&
  o.created_at - 120_000 <= e.occurred_at &&
  e.occurred_at <= o.expires_at &&
  !(o.security_code && e.security_code && o.security_code !== e.security_code);

function checkInvariants(tenants: string[], opMatchSeqFrom: number, opEventSeqFrom: number, now: number) {
  const inList = tenants.map(() => "?").join(",");
  const orders = store.sqlite.query<OrderRow, string[]>(`SELECT * FROM orders WHERE tenant_id IN (${inList})`).all(...tenants);
  const events = store.sqlite.query<EventRow, string[]>(`SELECT * FROM events WHERE tenant_id IN (${inList})`).all(...tenants);
  const matches = store.sqlite.query<MatchRow, string[]>(`SELECT * FROM matches WHERE tenant_id IN (${inList}) ORDER BY seq`).all(...tenants);
  const key = (x: { tenant_id: string; environment: string }, id: string) => `${x.tenant_id}|${x.environment}|${id}`;
  const orderByKey = new Map(orders.map((o) => [key(o, o.id), o]));
  const eventBySeq = new Map(events.map((e) => [e.seq, e]));

  // one match per order, one per event
  expect(new Set(matches.map((m) => key(m, m.order_id))).size).toBe(matches.length);
  expect(new Set(matches.map((m) => m.event_seq)).size).toBe(matches.length);
  for (const m of matches) {
    const o = orderByKey.get(key(m, m.order_id));
    const e = eventBySeq.get(m.event_seq);
    // never across a tenant or environment
    expect(o).toBeDefined();
    expect(e).toBeDefined();
    expect([e!.tenant_id, e!.environment]).toEqual([m.tenant_id, m.environment]);
    expect(o!.status).toBe("matched");
    expect(e!.match_status).toBe("matched");
    expect(e!.order_id).toBe(m.order_id);
    if (m.method === "auto") {
      expect(e!.amount).toBe(o!.expected_amount);
      expect(e!.currency).toBe(o!.currency);
    }
  }
  expect(orders.filter((o) => o.status === "matched").length).toBe(matches.length);
  expect(events.filter((e) => e.match_status === "matched").length).toBe(matches.length);

  const fresh = matches.filter((m) => m.seq >= opMatchSeqFrom);

  // the payments that arrived in this step: rules 1–5 from the payment's side decide, nothing else
  for (const e of events) {
    if (e.seq < opEventSeqFrom || e.match_status === "duplicate") continue;
    const openOrders = orders.filter(
      (x) => (x.status === "pending" && now <= x.expires_at) || fresh.some((m) => key(m, m.order_id) === key(x, x.id)),
    );
    const cands = openOrders.filter((x) => candidate(x, e));
    const pick = onlyChoice(
      cands,
      (x) => !!x.security_code && x.security_code === e.security_code,
      (x) => fits(e.payer_name, x.customer_name),
    );
    const expected = pick ? { match_status: "matched", order_id: pick.id } : { match_status: cands.length > 0 ? "ambiguous" : "unmatched", order_id: null };
    expect({ match_status: e.match_status, order_id: e.order_id }).toEqual(expected);
  }

  // the matches of this step: window, expiry, and for re-evaluated payments the only choice by the
  // rules from both sides at that moment
  for (const m of fresh) {
    if (m.method !== "auto") continue;
    const o = orderByKey.get(key(m, m.order_id))!;
    const e = eventBySeq.get(m.event_seq)!;
    expect(o.created_at - 120_000 <= e.occurred_at && e.occurred_at <= o.expires_at).toBe(true);
    expect(m.matched_at).toBeLessThanOrEqual(o.expires_at);
    if (e.seq >= opEventSeqFrom) continue; // a new payment: checked above
    const laterInStep = fresh.filter((x) => x.seq >= m.seq);
    const openOrders = orders.filter(
      (x) => (x.status === "pending" && now <= x.expires_at) || laterInStep.some((l) => key(l, l.order_id) === key(x, x.id)),
    );
    const waiting = events.filter(
      (x) => x.match_status === "unmatched" || x.match_status === "ambiguous" || laterInStep.some((l) => l.event_seq === x.seq),
    );
    const fromPayment = onlyChoice(
      openOrders.filter((x) => candidate(x, e)),
      (x) => !!x.security_code && x.security_code === e.security_code,
      (x) => fits(e.payer_name, x.customer_name),
    );
    expect(fromPayment?.id).toBe(o.id);
    const fromOrder = onlyChoice(
      waiting.filter((x) => candidate(o, x)),
      (x) => !!x.security_code && x.security_code === o.security_code,
      (x) => fits(x.payer_name, o.customer_name),
    );
    expect(fromOrder?.seq).toBe(e.seq);
  }
}

const lastMatchSeq = () => store.sqlite.query<{ s: number | null }, []>("SELECT max(seq) AS s FROM matches").get()!.s ?? 0;
const lastEventSeq = () => store.sqlite.query<{ s: number | null }, []>("SELECT max(seq) AS s FROM events").get()!.s ?? 0;

test("matching invariants hold over random interleavings", async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 30 }), async (ops) => {
      const a = createTenant(store.db, clock, "A").tenant_id;
      const b = createTenant(store.db, clock, "B").tenant_id;
      const scopes: Scope[] = [
        { tenantId: a, environment: "live" },
        { tenantId: a, environment: "test" },
        { tenantId: b, environment: "test" },
      ];
      const sent: { scope: Scope; deviceId: string | null; event: PaymentEvent }[] = [];
      for (const op of ops) {
        const now = clock.now();
        const from = lastMatchSeq() + 1;
        const eventsFrom = lastEventSeq() + 1;
        try {
          if (op.kind === "sync") {
            const inputs: OrderInput[] = op.orders.map((o) => ({
              id: o.id,
              amount: o.amount,
              currency: "PEN",
              status: o.cancelled ? "cancelled" : "pending",
              customer_name: o.name,
              security_code: o.code,
              unique_amount: o.unique,
              created_at: now + o.created,
              expires_at: now + o.created + o.ttl,
            }));
            const seen = new Set<string>();
            await t.writer.run("syncOrders", { scope: scopes[op.scope]!, orders: inputs.filter((o) => !seen.has(o.id) && seen.add(o.id)), now });
          } else if (op.kind === "pay") {
            const scope = scopes[op.scope]!;
            const deviceId = op.device === null ? null : `dev_${scope.tenantId}_${scope.environment}_${op.device}`;
            const event = paymentEvent(
              {
                amount: op.amount,
                occurredAt: now + op.occurred,
                source: op.source,
                ...(op.payer ? { payerName: op.payer } : {}),
                ...(op.code ? { securityCode: op.code } : {}),
                ...(op.reference ? { reference: op.reference } : {}),
              },
              now,
            );
            sent.push({ scope, deviceId, event });
            const r = await ingestPayment(t, { ...scope, deviceId }, event);
            expect(r.status).toBe(201);
          } else if (op.kind === "repeat" && sent.length > 0) {
            // the same event again: from the same phone a replay, from another phone a duplicate
            const s = sent[op.index % sent.length]!;
            const deviceId = op.otherDevice ? `${s.deviceId ?? "dev_x"}_other` : s.deviceId;
            const r = await ingestPayment(t, { ...s.scope, deviceId }, s.event);
            if (!op.otherDevice) expect(r.replayed).toBe(true);
            else if (s.deviceId !== null) expect(r.replayed ? "replayed" : (r.body.match as { status: string }).status).not.toBe("matched");
          } else if (op.kind === "advance") {
            clock.advance(op.ms);
          } else if (op.kind === "sweep") {
            await sweepExpiredOrders(store.db, t.writer, now);
          } else if (op.kind === "fold") {
            store.db.transaction((tx) => moveRecentEvents(tx, Number.MAX_SAFE_INTEGER)); // all so far: later repeats meet both partitions
          } else if (op.kind === "manual") {
            const scope = scopes[op.scope]!;
            const mine = sent.filter((s) => s.scope === scope);
            if (mine.length > 0) {
              await t.writer.run("manualMatch", { scope, request: { order_id: op.order, event_id: mine[op.event % mine.length]!.event.event_id }, now });
            }
          }
        } catch (e) {
          if (!(e instanceof DomainError) || e.status >= 500) throw e; // 4xx outcomes are part of the game
        }
        checkInvariants([a, b], from, eventsFrom, clock.now());
      }
    }),
    { numRuns: 500 },
  );
}, 120_000);
