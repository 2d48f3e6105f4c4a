// Order sync and lookup (contract §9, §10). No HTTP here: plain values in, plain values out,
// DomainError for the outcomes the contract names.
import type { Database } from "bun:sqlite";
import { and, eq, gte, inArray, lte, sql } from "drizzle-orm";
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
import { DEFAULT_ORDER_TTL_MS, METADATA_MAX_BYTES, type OrderInputSchema } from "./model";
import { cursorsOf } from "./cursor";
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
  const s = orderStatements(db);
  const out: OrderView[] = [];
  for (const id of ids) {
    const row = matchingStatements(db).orderByKey.get({ ...scope, id });
    if (!row) continue;
    const match: MatchRow | null = row.matchId ? (s.matchById.get({ id: row.matchId }) ?? null) : null;
    out.push(orderView(row, match, now, cursorsOf(db)));
  }
  return out;
}

export function getOrder(store: Store, scope: Scope, id: string, now: number): OrderView {
  const [order] = readOrders(store.db, scope, [id], now);
  if (!order) throw new DomainError("order_not_found", `No order ${id}`, { order_id: id });
  return order;
}
