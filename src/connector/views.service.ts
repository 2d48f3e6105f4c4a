// Read-only views of the connector (contract §12, §19): the reconciliation view of payment events,
// one payment with the orders a person could give it to, and the shop's phones.
import type { Database } from "bun:sqlite";
import { and, asc, eq, gt, gte, lte, sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/bun-sqlite";
import { EARLY_PAYMENT_MS, type OrderStatus } from "../matching/engine";
import type { Scope } from "../matching/service";
import { matchingStatements, pendingOrdersAround, WAITING, type EventRow } from "../matching/store";
import { perConnection } from "../store/db";
import type { Db, Store } from "../store/db";
import * as schema from "../store/schema";
import { ORDERS_START, pageByStatus } from "./cursor";
import { findEvent } from "./matches.service";
import { CANDIDATES_MAX, MATCH_STATUSES, SAME_AMOUNT_CANDIDATES_MAX } from "./model";
import { orderViews, ordersWithStatus, readOrders } from "./orders.service";
import { deviceView, eventView, type OrderView } from "./views";
import { NO_NOTIFICATIONS, notificationCounts } from "../notifications/views";

const { events, devices, orders } = schema;
const p = sql.placeholder;

export type MatchStatus = (typeof MATCH_STATUSES)[number];
const ALL_STATUSES: readonly MatchStatus[] = MATCH_STATUSES;


function prepareAll(client: Database) {
  const db = drizzle(client, { schema });
  return {
    /** events_status_idx: (tenant, environment, match_status, seq). */
    eventsByStatus: db
      .select()
      .from(events)
      .where(
        and(
          eq(events.tenantId, p("tenantId")),
          eq(events.environment, p("environment")),
          eq(events.matchStatus, p("status")),
          gt(events.seq, p("after")),
        ),
      )
      .orderBy(asc(events.seq))
      .limit(p("limit"))
      .prepare(),
    devices: db
      .select()
      .from(devices)
      .where(and(eq(devices.tenantId, p("tenantId")), eq(devices.environment, p("environment"))))
      .orderBy(asc(devices.createdAt), asc(devices.id))
      .prepare(),
    /**
     * Orders stored expired with this expected amount whose window holds `occurredAt` (§19):
     * orders_expired_idx from the payment's time on (an order that expired before it cannot hold
     * it), the amount and created_at read in the index.
     */
    expiredAround: db
      .select({ id: orders.id, createdAt: orders.createdAt })
      .from(orders)
      .where(
        and(
          eq(orders.tenantId, p("tenantId")),
          eq(orders.environment, p("environment")),
          sql`${orders.status} = 'expired'`, // literal: the partial index
          gte(orders.expiresAt, p("occurredAt")),
          eq(orders.expectedAmount, p("amount")),
          lte(orders.createdAt, p("createdAtMost")),
        ),
      )
      .prepare(),
  };
}

/** Prepared once per connection (exported for the query-plan tests). */
export const viewStatements = perConnection(prepareAll);

/**
 * contract §12: events in commit order (their seq), optionally of one status. Without a status the
 * page is merged from one index range per status, so it never scans other tenants' events.
 */
export function listEvents(store: Store, scope: Scope, status: MatchStatus | undefined, after: string | undefined, limit: number) {
  const s = viewStatements(store.db);
  return pageByStatus(
    store,
    "event",
    scope,
    status ? [status] : ALL_STATUSES,
    { after, limit },
    (st, from, take): EventRow[] => s.eventsByStatus.all({ ...scope, status: st, after: from, limit: take }),
    eventView,
  );
}

export type PaymentWithCandidates = ReturnType<typeof eventView> & { candidates: OrderView[] };

/**
 * contract §19: one payment, as the events view shows it, with the orders a person could give it
 * to (model.ts CANDIDATES_DOC says which, in what order). 404 event_not_found for an id that is not
 * the scope's; `deviceId` as in a manual match.
 */
export function eventWithCandidates(store: Store, scope: Scope, eventId: string, now: number, deviceId?: string): PaymentWithCandidates {
  return store.db.transaction((txn) => {
    const tx = txn as unknown as Db;
    const event = findEvent(tx, scope, eventId, deviceId);
    return { ...eventView(event), candidates: WAITING.includes(event.matchStatus) ? candidatesFor(tx, scope, event, now) : [] };
  });
}

const OPEN: ReadonlySet<OrderStatus> = new Set(["pending", "expired"]);

function candidatesFor(db: Db, scope: Scope, event: EventRow, now: number): OrderView[] {
  // 1. Of its amount, with its occurred_at in their window: the closest in time first.
  const around = [
    ...pendingOrdersAround(matchingStatements(db), scope, event),
    ...viewStatements(db).expiredAround.all({ ...scope, occurredAt: event.occurredAt, amount: event.amount, createdAtMost: event.occurredAt + EARLY_PAYMENT_MS }),
  ];
  const distance = (o: { createdAt: number }) => Math.abs(o.createdAt - event.occurredAt);
  around.sort((a, b) => distance(a) - distance(b) || b.createdAt - a.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const first = around.slice(0, SAME_AMOUNT_CANDIDATES_MAX).map((o) => o.id);
  // 2. The other pending and expired orders, newest first, up to CANDIDATES_MAX in all. The newest
  // CANDIDATES_MAX hold at least the ones needed once those of the first group are left out.
  const need = CANDIDATES_MAX - first.length;
  const taken = new Set(first);
  const others = need > 0 ? ordersWithStatus(db, scope, OPEN, ORDERS_START, CANDIDATES_MAX, now).filter((o) => !taken.has(o.id)).slice(0, need) : [];
  return [...readOrders(db, scope, first, now), ...orderViews(db, others, now)];
}

/** contract §12: the tenant's phones in this environment, with liveness from signed heartbeats. */
export function listDevices(store: Store, scope: Scope, now: number) {
  return store.db.transaction(() => {
    const counts = notificationCounts(store.db, scope, now);
    return {
      data: viewStatements(store.db)
        .devices.all({ ...scope })
        .map((d) => deviceView(d, now, counts.get(d.id) ?? NO_NOTIFICATIONS)),
    };
  });
}
