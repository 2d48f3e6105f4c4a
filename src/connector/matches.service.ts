// The matches feed, its acknowledgement (contract §11) and manual matches (§10).
import type { Database } from "bun:sqlite";
import { and, asc, eq, gt, inArray, isNull, max, sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/bun-sqlite";
import { DomainError } from "../errors";
import { effectiveStatus } from "../matching/engine";
import { MatchConflictError, recordMatch, type Scope } from "../matching/service";
import { matchingStatements, WAITING, type EventRow, type MatchRow } from "../matching/store";
import { perConnection, type Db, type Store } from "../store/db";
import * as schema from "../store/schema";
import { cursorsOf, invalidCursor, type Cursors } from "./cursor";
import { matchView, type MatchView } from "./views";

const { matches, feedAcks, events, devices } = schema;
const p = sql.placeholder;

function prepareAll(client: Database) {
  const db = drizzle(client, { schema });
  return {
    /** matches_feed_idx: (tenant, environment, seq). */
    page: db
      .select()
      .from(matches)
      .where(and(eq(matches.tenantId, p("tenantId")), eq(matches.environment, p("environment")), gt(matches.seq, p("after"))))
      .orderBy(asc(matches.seq))
      .limit(p("limit"))
      .prepare(),
    acked: db
      .select({ throughSeq: feedAcks.throughSeq })
      .from(feedAcks)
      .where(and(eq(feedAcks.tenantId, p("tenantId")), eq(feedAcks.environment, p("environment"))))
      .prepare(),
    /** The newest position ever handed out (seq is never reused). */
    lastSeq: db.select({ seq: max(matches.seq) }).from(matches).prepare(),
    matchByOrder: db
      .select()
      .from(matches)
      .where(and(eq(matches.tenantId, p("tenantId")), eq(matches.environment, p("environment")), eq(matches.orderId, p("orderId"))))
      .prepare(),
    matchByEventSeq: db.select().from(matches).where(eq(matches.eventSeq, p("seq"))).prepare(),
    /**
     * An event id within the scope, in each partition of events (schema.ts, `recent`): once per phone
     * of the scope and once for test payments. Event ids are unique per phone only, so there may be
     * several.
     */
    eventsByIdRecent: eventsByIdIn(db, 1),
    eventsByIdOld: eventsByIdIn(db, 0),
  };
}

/**
 * An event id in one partition of events, from the scope's phones (`phones`) or from test payments
 * (`testPayments`, device_id IS NULL): each a lookup in that partition's unique index. Written as
 * two statements, not an OR: with the partial indexes SQLite would scan the partition for the OR.
 * Unary + on the scope columns: without statistics SQLite would rather range over the scope in
 * events_hour_amount_idx (all of the shop's events) than look the id up.
 */
function eventsByIdIn(db: ReturnType<typeof drizzle<typeof schema>>, partition: 0 | 1) {
  const inScope = and(eq(sql`+${events.tenantId}`, p("tenantId")), eq(sql`+${events.environment}`, p("environment")));
  const inPartition = sql`${events.recent} = ${sql.raw(String(partition))}`; // literal: the partial indexes
  const scopePhones = db
    .select({ id: devices.id })
    .from(devices)
    .where(and(eq(devices.tenantId, p("tenantId")), eq(devices.environment, p("environment"))));
  return {
    phones: db
      .select()
      .from(events)
      .where(and(inScope, eq(events.eventId, p("eventId")), inArray(events.deviceId, scopePhones), inPartition))
      .prepare(),
    testPayments: db
      .select()
      .from(events)
      .where(and(inScope, eq(events.eventId, p("eventId")), isNull(events.deviceId), inPartition))
      .prepare(),
  };
}

/** Prepared once per connection (exported for the query-plan tests). */
export const feedStatements = perConnection(prepareAll);

/**
 * A position a client may hold: at most the newest seq ever handed out. A larger one (forged, or
 * from another box) would make the feed skip matches that are yet to come, so it is refused.
 */
function checkPosition(db: Db, seq: number, field: string): void {
  const last = feedStatements(db).lastSeq.get()?.seq ?? 0;
  if (seq > last) throw invalidCursor(field, "This cursor is ahead of the feed");
}

export interface FeedPage {
  data: MatchView[];
  next_cursor: string;
  has_more: boolean;
}

/**
 * contract §11: matches in commit order after `after`; without it, after the last acknowledged
 * cursor of this tenant and environment (from the start when none).
 */
export function readFeed(store: Store, scope: Scope, after: string | undefined, limit: number): FeedPage {
  // One read transaction: the position check and the page see the same snapshot.
  return store.db.transaction((txn) => {
    const tx = txn as unknown as Db;
    const s = feedStatements(tx);
    let from: number;
    if (after !== undefined) {
      from = cursorsOf(tx).decode("match", scope, after, "/after");
      checkPosition(tx, from, "/after");
    } else {
      from = s.acked.get({ ...scope })?.throughSeq ?? 0;
    }
    const rows = s.page.all({ ...scope, after: from, limit: limit + 1 });
    const page = rows.slice(0, limit);
    const last = page.length > 0 ? page[page.length - 1]!.seq : from;
    const cursors = cursorsOf(tx);
    return { data: page.map((m) => matchView(m, cursors)), next_cursor: cursors.encode("match", scope, last), has_more: rows.length > limit };
  });
}

/** contract §11: monotonic and idempotent; answers the newest acknowledged cursor. */
export function acknowledge(tx: Db, scope: Scope, through: string, now: number): { acknowledged_through: string } {
  const cursors = cursorsOf(tx);
  const seq = cursors.decode("match", scope, through, "/through");
  checkPosition(tx, seq, "/through");
  const current = feedStatements(tx).acked.get({ ...scope })?.throughSeq;
  if (current === undefined) {
    tx.insert(feedAcks).values({ ...scope, throughSeq: seq, updatedAt: now }).run();
  } else if (seq > current) {
    tx.update(feedAcks)
      .set({ throughSeq: seq, updatedAt: now })
      .where(and(eq(feedAcks.tenantId, scope.tenantId), eq(feedAcks.environment, scope.environment)))
      .run();
  }
  return { acknowledged_through: cursors.encode("match", scope, Math.max(seq, current ?? 0)) };
}

export interface ManualMatchRequest {
  order_id: string;
  event_id: string;
  device_id?: string;
}

/**
 * An event of the scope by its id, from either partition of events; 404 event_not_found when there
 * is none (contract §10, §19). Event ids are unique per phone only: `deviceId` names the phone when
 * two sent the same id.
 */
export function findEvent(db: Db, scope: Scope, eventId: string, deviceId?: string): EventRow {
  const s = feedStatements(db);
  const byId = { ...scope, eventId };
  const found = [s.eventsByIdRecent, s.eventsByIdOld].flatMap((part) => [...part.phones.all(byId), ...part.testPayments.all(byId)]);
  const mine = deviceId === undefined ? found : found.filter((e) => e.deviceId === deviceId);
  if (mine.length === 0) throw new DomainError("event_not_found", `No event ${eventId}`, { event_id: eventId });
  if (mine.length === 1) return mine[0]!;
  // Two phones may use the same event_id; one still waiting is the one a person means.
  const waiting = mine.filter((e) => WAITING.includes(e.matchStatus));
  if (waiting.length === 1) return waiting[0]!;
  if (waiting.length === 0) return mine.find((e) => e.matchStatus === "matched") ?? mine[0]!;
  throw new DomainError("invalid_request", `Several phones sent an event ${eventId}; add device_id`, {
    errors: [{ field: "/device_id", message: `required: ${waiting.map((e) => e.deviceId ?? "(test payment)").join(", ")} all sent this event_id` }],
  });
}

/**
 * contract §10: a person's decision. Matches an unmatched or ambiguous event to a pending or expired
 * order whatever the amounts; `method: manual`.
 */
export function manualMatch(tx: Db, scope: Scope, req: ManualMatchRequest, now: number): MatchView {
  const s = feedStatements(tx);
  const order = matchingStatements(tx).orderByKey.get({ ...scope, id: req.order_id });
  if (!order) throw new DomainError("order_not_found", `No order ${req.order_id}`, { order_id: req.order_id });
  const event = findEvent(tx, scope, req.event_id, req.device_id);

  const orderMatch = s.matchByOrder.get({ ...scope, orderId: order.id }) ?? null;
  const eventMatch = s.matchByEventSeq.get({ seq: event.seq }) ?? null;
  if (orderMatch || eventMatch) throw alreadyMatched(req, orderMatch, eventMatch, cursorsOf(tx));
  if (event.matchStatus === "duplicate") {
    throw new DomainError(
      "event_is_duplicate",
      `Event ${event.eventId} is another phone's report of payment ${event.duplicateOf}; match that event instead`,
      { event_id: event.eventId, duplicate_of: event.duplicateOf },
    );
  }
  const status = effectiveStatus(order, now);
  if (status === "cancelled") {
    throw new DomainError("order_cancelled", `Order ${order.id} is cancelled; re-sync it as pending first`, { order_id: order.id });
  }
  try {
    return matchView(recordMatch(tx, now, event, order.id, "manual"), cursorsOf(tx));
  } catch (e) {
    if (e instanceof MatchConflictError) throw alreadyMatched(req, null, null, cursorsOf(tx));
    throw e;
  }
}

function alreadyMatched(req: ManualMatchRequest, orderMatch: MatchRow | null, eventMatch: MatchRow | null, cursors: Cursors): DomainError {
  const side = orderMatch && eventMatch ? "Both the order and the event are" : orderMatch ? "The order is" : "The event is";
  const existing = orderMatch ?? eventMatch;
  return new DomainError("already_matched", `${side} already matched`, {
    order_id: req.order_id,
    event_id: req.event_id,
    ...(existing ? { match: matchView(existing, cursors) } : {}),
  });
}
