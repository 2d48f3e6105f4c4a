// Order sync, lookup and the list for people (contract §9, §10, §19). No HTTP here: plain values
// in, plain values out, DomainError for the outcomes the contract names.
import type { Database } from "bun:sqlite";
import { and, desc, eq, gte, inArray, lt, lte, sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/bun-sqlite";
import type { Static } from "@sinclair/typebox";
import { DomainError, type FieldError } from "../errors";
import { checkCurrency, invalid } from "../http/validation";
import { effectiveStatus, uniqueAmountOffset, UNIQUE_AMOUNT_MAX_OFFSET, type OrderStatus } from "../matching/engine";
import { reevaluateWaiting, type OrderShape, type Scope } from "../matching/service";
import { matchingStatements, type MatchRow, type OrderRow } from "../matching/store";
import { perConnection, type Db, type Store } from "../store/db";
import * as schema from "../store/schema";
import { MAX_EPOCH_MS } from "../http/schemas";
import { DEFAULT_ORDER_TTL_MS, METADATA_MAX_BYTES, ORDER_STATUSES, PAGE_LIMIT_DEFAULT, type OrderInputSchema } from "./model";
import { cursorsOf, ORDERS_START, type OrderPosition } from "./cursor";
import { orderView, type OrderView } from "./views";

const { orders, matches, PENDING_ORDER } = schema;
const p = sql.placeholder;

export type OrderInput = Static<typeof OrderInputSchema>;

function prepareAll(client: Database) {
  const db = drizzle(client, { schema });
  return {
    /** Expected amounts held by pending orders in [low, high] (orders_pending_candidates_idx range). */
    heldAmounts: db
      .select({ id: orders.id, expectedAmount: orders.expectedAmount })
      .from(orders)
      .where(
        and(
          eq(orders.tenantId, p("tenantId")),
          eq(orders.environment, p("environment")),
          PENDING_ORDER,
          gte(orders.expectedAmount, p("low")),
          lte(orders.expectedAmount, p("high")),
          gte(sql`+${orders.expiresAt}`, p("now")), // + : use the amount index, not orders_pending_expiry_idx
        ),
      )
      .prepare(),
    matchById: db.select().from(matches).where(eq(matches.id, p("id"))).prepare(),
    /**
     * contract §19: orders of one stored status, newest first after a position, that expire at or
     * after `expiresFrom` (0: all; now: pending orders without those past expiry). orders_list_idx,
     * walked backwards from (createdAt, id).
     */
    listByStatus: db
      .select()
      .from(orders)
      .where(
        and(
          eq(orders.tenantId, p("tenantId")),
          eq(orders.environment, p("environment")),
          eq(orders.status, p("status")),
          sql`(${orders.createdAt}, ${orders.id}) < (${p("createdAt")}, ${p("id")})`,
          gte(orders.expiresAt, p("expiresFrom")),
        ),
      )
      .orderBy(desc(orders.createdAt), desc(orders.id))
      .limit(p("limit"))
      .prepare(),
    /**
     * Orders stored pending that read expired: past expires_at, not yet recorded by serve's sweep.
     * orders_pending_expiry_idx (`expires_at < now`): that range is the sweep's backlog, which it
     * empties every tick, so the few rows are sorted here rather than walking every pending order of
     * orders_list_idx for them. Unary + on the scope: not the list index, whose pending range is the
     * shop's every pending order.
     */
    listPastExpiry: db
      .select()
      .from(orders)
      .where(
        and(
          PENDING_ORDER,
          lt(orders.expiresAt, p("now")),
          eq(sql`+${orders.tenantId}`, p("tenantId")),
          eq(sql`+${orders.environment}`, p("environment")),
          sql`(${orders.createdAt}, ${orders.id}) < (${p("createdAt")}, ${p("id")})`,
        ),
      )
      .orderBy(desc(orders.createdAt), desc(orders.id))
      .limit(p("limit"))
      .prepare(),
  };
}

/** Prepared once per connection (exported for the query-plan tests). */
export const orderStatements = perConnection(prepareAll);

const emptyToNull = (v: string | null | undefined): string | null => (v === undefined || v === null || v.trim() === "" ? null : v);

/** Checks the contract asks for beyond the schema; every failure of the batch at once. */
export function checkOrderBatch(inputs: readonly OrderInput[]): void {
  inputs.forEach((o, i) => checkCurrency(o.currency, `/orders/${i}/currency`));
  const errors: FieldError[] = [];
  const firstIndex = new Map<string, number>();
  inputs.forEach((o, i) => {
    const seen = firstIndex.get(o.id);
    if (seen !== undefined) errors.push({ field: `/orders/${i}/id`, message: `appears twice in this batch (also /orders/${seen}/id)` });
    else firstIndex.set(o.id, i);
    if (o.metadata != null && Buffer.byteLength(JSON.stringify(o.metadata)) > METADATA_MAX_BYTES) {
      errors.push({ field: `/orders/${i}/metadata`, message: `must be at most ${METADATA_MAX_BYTES} bytes as JSON` });
    }
    // contract §9 allows "." and "..", but no URL can name them: GET /orders/%2E reads as /orders/.
    if (o.id === "." || o.id === "..") {
      errors.push({ field: `/orders/${i}/id`, message: `"${o.id}" cannot be read back through a URL; use another id` });
    }
    if (o.created_at !== undefined && o.expires_at !== undefined && o.expires_at <= o.created_at) {
      errors.push({ field: `/orders/${i}/expires_at`, message: "must be after created_at" });
    }
  });
  if (errors.length > 0) throw invalid(errors);
}

/** What an order would be stored as; compared with the stored row to decide whether anything changed. */
type OrderState = Omit<OrderRow, "tenantId" | "environment" | "matchId" | "updatedAt">;

function sameState(a: OrderState, b: OrderState, now: number): boolean {
  return (
    a.amount === b.amount &&
    a.expectedAmount === b.expectedAmount &&
    a.currency === b.currency &&
    effectiveStatus(a, now) === effectiveStatus(b, now) &&
    a.createdAt === b.createdAt &&
    a.expiresAt === b.expiresAt &&
    a.customerName === b.customerName &&
    a.securityCode === b.securityCode &&
    a.uniqueAmount === b.uniqueAmount &&
    a.metadata === b.metadata
  );
}

const isOpen = (o: Pick<OrderRow, "status" | "expiresAt">, now: number): boolean => effectiveStatus(o, now) === "pending";

/**
 * contract §9: syncs up to 500 orders, all or nothing (a write of the writer, src/writes.ts: one
 * savepoint); then re-evaluates the waiting payments the changed orders could concern (§10).
 * Returns the orders in input order.
 */
export function syncOrders(tx: Db, scope: Scope, inputs: readonly OrderInput[], now: number): OrderView[] {
  checkOrderBatch(inputs);
  const s = orderStatements(tx);
  const stored = new Map<string, OrderRow>();
  if (inputs.length > 0) {
    const ids = inputs.map((o) => o.id);
    for (const row of tx
      .select()
      .from(orders)
      .where(and(eq(orders.tenantId, scope.tenantId), eq(orders.environment, scope.environment), inArray(orders.id, ids)))
      .all()) {
      stored.set(row.id, row);
    }
  }

  // Defaults that depend on what is stored: a re-sync that leaves out created_at keeps it.
  const errors: FieldError[] = [];
  const times = inputs.map((o, i) => {
    const prev = stored.get(o.id);
    const createdAt = o.created_at ?? prev?.createdAt ?? now;
    const expiresAt =
      o.expires_at ?? (prev && prev.createdAt === createdAt ? prev.expiresAt : createdAt + DEFAULT_ORDER_TTL_MS);
    if (expiresAt <= createdAt) errors.push({ field: `/orders/${i}/expires_at`, message: "must be after created_at" });
    else if (expiresAt > MAX_EPOCH_MS) {
      errors.push({ field: `/orders/${i}/created_at`, message: `the default expires_at (created_at + 24 h) would pass ${MAX_EPOCH_MS}; send expires_at` });
    }
    return { createdAt, expiresAt };
  });
  if (errors.length > 0) throw invalid(errors);

  const reevaluate: OrderShape[] = [];
  inputs.forEach((input, i) => {
    const prev = stored.get(input.id);
    const { createdAt, expiresAt } = times[i]!;
    const base = {
      id: input.id,
      amount: input.amount,
      currency: input.currency,
      createdAt,
      expiresAt,
      customerName: emptyToNull(input.customer_name),
      securityCode: emptyToNull(input.security_code),
      metadata: input.metadata == null ? null : JSON.stringify(input.metadata),
    };
    let next: OrderState;
    if (prev?.status === "matched") {
      // contract §9: a matched order keeps its amount and cannot be cancelled.
      if (input.amount !== prev.amount || input.currency !== prev.currency || input.status === "cancelled") {
        throw new DomainError(
          "order_already_matched",
          `Order ${input.id} is already matched; its amount and currency cannot change and it cannot be cancelled`,
          { order_id: input.id },
        );
      }
      next = { ...base, status: "matched", expectedAmount: prev.expectedAmount, uniqueAmount: prev.uniqueAmount };
    } else {
      const uniqueAmount = input.unique_amount ?? false;
      const wanted: OrderStatus = input.status === "cancelled" ? "cancelled" : now > expiresAt ? "expired" : "pending";
      next = { ...base, status: wanted, uniqueAmount, expectedAmount: input.amount };
      if (uniqueAmount) next.expectedAmount = expectedAmountFor(s, scope, input, prev, wanted, now);
    }

    if (prev && sameState(prev, next, now)) return; // contract §9: exactly as stored changes nothing
    if (prev) {
      tx.update(orders)
        .set({ ...next, updatedAt: now })
        .where(and(eq(orders.tenantId, scope.tenantId), eq(orders.environment, scope.environment), eq(orders.id, input.id)))
        .run();
    } else {
      tx.insert(orders)
        .values({ ...next, ...scope, updatedAt: now })
        .run();
    }
    // contract §10: created, re-synced as pending, cancelled or expired: re-evaluate what waits,
    // for the order as it was (payments it may have kept ambiguous) and as it is.
    if (prev && isOpen(prev, now)) reevaluate.push(prev);
    if (isOpen(next, now)) reevaluate.push(next);
  });

  reevaluateWaiting(tx, scope, reevaluate, now);
  return readOrders(tx, scope, inputs.map((o) => o.id), now);
}

/**
 * contract §10: `amount + k` for the smallest free k in 0–99, fixed across re-syncs of the same
 * order. Only an order that is (or becomes) pending holds an amount.
 */
function expectedAmountFor(
  s: ReturnType<typeof orderStatements>,
  scope: Scope,
  input: OrderInput,
  prev: OrderRow | undefined,
  wanted: OrderStatus,
  now: number,
): number {
  const keepable = prev !== undefined && prev.uniqueAmount && prev.amount === input.amount && prev.currency === input.currency;
  if (wanted !== "pending") return keepable ? prev.expectedAmount : input.amount;
  const held = new Set(
    s.heldAmounts
      .all({ ...scope, low: input.amount, high: input.amount + UNIQUE_AMOUNT_MAX_OFFSET, now })
      .filter((r) => r.id !== input.id)
      .map((r) => r.expectedAmount),
  );
  // Stays fixed while the order stays pending; a reopened order keeps it if no one took it meanwhile.
  if (keepable && (isOpen(prev, now) || !held.has(prev.expectedAmount))) return prev.expectedAmount;
  const k = uniqueAmountOffset(input.amount, held);
  if (k === null) {
    throw new DomainError(
      "unique_amount_unavailable",
      `Every amount from ${input.amount} to ${input.amount + UNIQUE_AMOUNT_MAX_OFFSET} cents is held by another pending order`,
      { order_id: input.id },
    );
  }
  return input.amount + k;
}

/** Orders with their matches, in the order of `ids` (missing ids are skipped). */
export function readOrders(db: Db, scope: Scope, ids: readonly string[], now: number): OrderView[] {
  const rows = ids.map((id) => matchingStatements(db).orderByKey.get({ ...scope, id }));
  return orderViews(db, rows.filter((r) => r !== undefined), now);
}

/** Stored orders as the connector shows them, each with its match. */
export function orderViews(db: Db, rows: readonly OrderRow[], now: number): OrderView[] {
  const s = orderStatements(db);
  return rows.map((row) => {
    const match: MatchRow | null = row.matchId ? (s.matchById.get({ id: row.matchId }) ?? null) : null;
    return orderView(row, match, now, cursorsOf(db));
  });
}

/** Newest first, as the orders list reads (contract §19): created_at descending, then id descending. */
export const newestFirst = (a: OrderPosition, b: OrderPosition): number => b.createdAt - a.createdAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

/**
 * Up to `take` orders that read (effectiveStatus at `now`) as one of `statuses`, newest first after
 * `from`: one index range per stored status, merged. A stored pending order reads pending or
 * expired, so asked for one of the two, the pending range is cut by expires_at.
 */
export function ordersWithStatus(db: Db, scope: Scope, statuses: ReadonlySet<OrderStatus>, from: OrderPosition, take: number, now: number): OrderRow[] {
  const s = orderStatements(db);
  const at = { ...scope, createdAt: from.createdAt, id: from.id, limit: take };
  const stored = (status: OrderStatus, expiresFrom = 0) => s.listByStatus.all({ ...at, status, expiresFrom });
  const parts: OrderRow[][] = [];
  if (statuses.has("pending") && statuses.has("expired")) parts.push(stored("pending"));
  else if (statuses.has("pending")) parts.push(stored("pending", now));
  else if (statuses.has("expired")) parts.push(s.listPastExpiry.all({ ...at, now }));
  for (const status of ["expired", "matched", "cancelled"] as const) if (statuses.has(status)) parts.push(stored(status));
  return parts.flat().sort(newestFirst).slice(0, take);
}

export interface OrderListQuery {
  /** Statuses as orders read now; empty or absent: every status. */
  statuses?: readonly OrderStatus[];
  /** A `next_cursor` of this list; absent: the newest orders. */
  after?: string;
  /** 1–500, default 100 (the caller checks the bounds). */
  limit?: number;
}

export interface OrdersPage {
  data: OrderView[];
  next_cursor: string;
  has_more: boolean;
}

/**
 * contract §19: the orders of the scope, newest first, of some statuses (as they read at `now`),
 * a page after the cursor `after` (400 invalid_cursor when it is not one of this list and scope).
 */
export function listOrders(store: Store, scope: Scope, q: OrderListQuery, now: number): OrdersPage {
  const statuses = new Set<OrderStatus>(q.statuses?.length ? q.statuses : ORDER_STATUSES);
  const limit = q.limit ?? PAGE_LIMIT_DEFAULT;
  // One read transaction: the ranges merged into a page see the same snapshot.
  return store.db.transaction((txn) => {
    const tx = txn as unknown as Db;
    const cursors = cursorsOf(tx);
    const from = q.after === undefined ? ORDERS_START : cursors.orders.decode(scope, q.after, "/after");
    const rows = ordersWithStatus(tx, scope, statuses, from, limit + 1, now);
    const page = rows.slice(0, limit);
    const last = page.length > 0 ? page[page.length - 1]! : from;
    return {
      data: orderViews(tx, page, now),
      next_cursor: cursors.orders.encode(scope, { createdAt: last.createdAt, id: last.id }),
      has_more: rows.length > limit,
    };
  });
}

export function getOrder(store: Store, scope: Scope, id: string, now: number): OrderView {
  const [order] = readOrders(store.db, scope, [id], now);
  if (!order) throw new DomainError("order_not_found", `No order ${id}`, { order_id: id });
  return order;
}
