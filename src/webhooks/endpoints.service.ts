// Webhook endpoints and their messages (contract §15): what the connector routes, the command line
// and the delivery loop ask for. Writes take the writer's transaction (src/writes.ts); reads take
// the reader. Every query names the caller's tenant and environment: another scope's endpoint is
// `404 webhook_not_found`, like any other connector resource.
import { and, desc, eq, isNull, lt, sql } from "drizzle-orm";
import { cursorsOf } from "../connector/cursor";
import { DomainError } from "../errors";
import { newId } from "../ids";
import { rawClient, type Db, type Store } from "../store/db";
import { webhookEndpoints, webhookMessages, type WebhookMessageStatus } from "../store/schema";
import { queueWebhook, WEBHOOK_EVENT_TYPES, type WebhookEventType, type WebhookScope } from "./outbox";
import { afterAttempt, MESSAGE_RETENTION_MS, PREVIOUS_SECRET_MS, type AttemptResult } from "./schedule";

/** contract §15: at most this many endpoints per tenant and environment. */
export const MAX_ENDPOINTS = 16;
export const MAX_URL_LENGTH = 2048;

type EndpointRow = typeof webhookEndpoints.$inferSelect;
type MessageRow = typeof webhookMessages.$inferSelect;

export function endpointView(e: EndpointRow) {
  return {
    id: e.id,
    url: e.url,
    events: JSON.parse(e.events) as WebhookEventType[],
    description: e.description,
    status: e.status,
    disabled_reason: e.status === "disabled" ? e.disabledReason : null,
    created_at: e.createdAt,
    updated_at: e.updatedAt,
  };
}
export type EndpointView = ReturnType<typeof endpointView>;

export function messageView(m: MessageRow) {
  return {
    id: m.id,
    type: m.type as WebhookEventType,
    status: m.status,
    attempts: m.attempts,
    created_at: m.createdAt,
    next_attempt_at: m.status === "pending" ? m.nextAttemptAt : null,
    last_attempt_at: m.lastAttemptAt,
    last_response_status: m.lastResponseStatus,
    last_error: m.lastError,
  };
}
export type MessageView = ReturnType<typeof messageView>;

/** An absolute http or https URL of at most 2048 characters (LAN addresses allowed); else 400. */
export function checkEndpointUrl(url: string, field = "/url"): string {
  const bad = (message: string) => new DomainError("invalid_request", `url: ${message}`, { errors: [{ field, message }] });
  if ([...url].length > MAX_URL_LENGTH) throw bad(`must be at most ${MAX_URL_LENGTH} characters`);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw bad("must be an absolute http:// or https:// URL");
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") throw bad("must be an absolute http:// or https:// URL");
  return url;
}

/** `events`, deduplicated in the order of the contract's table; default: every type. */
function eventList(events: readonly string[] | undefined): string {
  if (events === undefined) return JSON.stringify(WEBHOOK_EVENT_TYPES);
  if (events.length === 0) throw new DomainError("invalid_request", "events: list at least one event type", { errors: [{ field: "/events", message: "must not be empty" }] });
  return JSON.stringify(WEBHOOK_EVENT_TYPES.filter((t) => events.includes(t)));
}

/** The scope's endpoints that are not deleted: every lookup of a caller's endpoints starts here. */
const inScope = (scope: WebhookScope) =>
  and(eq(webhookEndpoints.tenantId, scope.tenantId), eq(webhookEndpoints.environment, scope.environment), isNull(webhookEndpoints.deletedAt));

function findEndpoint(db: Db, scope: WebhookScope, id: string): EndpointRow {
  const row = db.select().from(webhookEndpoints).where(and(eq(webhookEndpoints.id, id), inScope(scope))).get();
  if (!row) throw new DomainError("webhook_not_found", `No webhook endpoint ${id}`, { id });
  return row;
}

// ---- writes (src/writes.ts)

export interface NewEndpoint {
  url: string;
  events?: WebhookEventType[];
  description?: string | null;
}

export function createEndpoint(tx: Db, scope: WebhookScope, input: NewEndpoint, sealedSecret: string, now: number): EndpointView {
  const url = checkEndpointUrl(input.url);
  const count = tx
    .select({ n: sql<number>`count(*)` })
    .from(webhookEndpoints)
    .where(inScope(scope))
    .get()!.n;
  if (count >= MAX_ENDPOINTS) {
    throw new DomainError("webhook_limit_reached", `At most ${MAX_ENDPOINTS} webhook endpoints per tenant and environment; delete one first`, { max_endpoints: MAX_ENDPOINTS });
  }
  const row = tx
    .insert(webhookEndpoints)
    .values({
      id: newId("whe"),
      ...scope,
      url,
      events: eventList(input.events),
      description: input.description ?? null,
      secretEnc: sealedSecret,
      createdAt: now,
      updatedAt: now,
    })
    .returning()
    .get();
  return endpointView(row);
}

export interface EndpointPatch {
  url?: string;
  events?: WebhookEventType[];
  description?: string | null;
  status?: "enabled" | "disabled";
}

/** Enabling clears the reason and the failing clock; queued messages then resume (contract §15). */
export function updateEndpoint(tx: Db, scope: WebhookScope, id: string, patch: EndpointPatch, now: number): EndpointView {
  const current = findEndpoint(tx, scope, id);
  const set: Partial<EndpointRow> = { updatedAt: now };
  if (patch.url !== undefined) set.url = checkEndpointUrl(patch.url);
  if (patch.events !== undefined) set.events = eventList(patch.events);
  if (patch.description !== undefined) set.description = patch.description;
  if (patch.status === "enabled" && current.status !== "enabled") Object.assign(set, { status: "enabled", disabledReason: null, failingSince: null });
  if (patch.status === "disabled" && current.status !== "disabled") Object.assign(set, { status: "disabled", disabledReason: "manual" });
  return endpointView(tx.update(webhookEndpoints).set(set).where(eq(webhookEndpoints.id, current.id)).returning().get()!);
}

/** Hidden at once; its messages (undelivered ones included) are removed by pruneWebhooks. */
export function deleteEndpoint(tx: Db, scope: WebhookScope, id: string, now: number): { id: string; deleted: true } {
  findEndpoint(tx, scope, id);
  tx.update(webhookEndpoints).set({ deletedAt: now, status: "disabled", updatedAt: now }).where(eq(webhookEndpoints.id, id)).run();
  return { id, deleted: true };
}

/** The new secret signs from now on; the previous one also signs for 24 h. */
export function rotateSecret(tx: Db, scope: WebhookScope, id: string, sealedSecret: string, now: number): { id: string } {
  const current = findEndpoint(tx, scope, id);
  tx.update(webhookEndpoints)
    .set({ secretEnc: sealedSecret, previousSecretEnc: current.secretEnc, previousSecretUntil: now + PREVIOUS_SECRET_MS, updatedAt: now })
    .where(eq(webhookEndpoints.id, id))
    .run();
  return { id };
}

export function queueTestMessage(tx: Db, scope: WebhookScope, id: string, now: number): { message_id: string } {
  findEndpoint(tx, scope, id);
  const [messageId] = queueWebhook(tx, scope, "webhook.test", () => ({ endpoint_id: id }), now, id);
  return { message_id: messageId! };
}

/** Any message of the endpoint is attempted again now (a disabled endpoint's waits until it is enabled). */
export function retryMessage(tx: Db, scope: WebhookScope, endpointId: string, messageId: string, now: number): { message_id: string; status: "pending" } {
  findEndpoint(tx, scope, endpointId);
  const changed = tx
    .update(webhookMessages)
    .set({ status: "pending", nextAttemptAt: now })
    .where(and(eq(webhookMessages.id, messageId), eq(webhookMessages.endpointId, endpointId)))
    .returning({ id: webhookMessages.id })
    .get();
  if (!changed) throw new DomainError("webhook_message_not_found", `No message ${messageId} for endpoint ${endpointId}`, { id: messageId });
  return { message_id: messageId, status: "pending" };
}

export interface AttemptReport {
  messageId: string;
  result: AttemptResult;
  now: number;
  /** In [0, 1): the jitter of the next delay. */
  random: number;
}

/** Records one delivery attempt and schedules the next (schedule.ts). */
export function recordAttempt(tx: Db, { messageId, result, now, random }: AttemptReport): { status: WebhookMessageStatus; disabled: string | null } | null {
  const m = tx.select().from(webhookMessages).where(eq(webhookMessages.id, messageId)).get();
  if (!m) return null; // its endpoint was deleted meanwhile
  const e = tx.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, m.endpointId)).get();
  if (!e) return null;
  const attempts = m.attempts + 1;
  const outcome = afterAttempt(result, attempts, e.failingSince, now, random);
  tx.update(webhookMessages)
    .set({
      attempts,
      lastAttemptAt: now,
      lastResponseStatus: result.kind === "answered" ? result.status : null,
      lastError: result.kind === "error" ? result.error.slice(0, 500) : result.status >= 200 && result.status < 300 ? null : `HTTP ${result.status}`,
      status: outcome.message.status,
      nextAttemptAt: outcome.message.nextAttemptAt,
    })
    .where(eq(webhookMessages.id, messageId))
    .run();
  const disable = e.status === "enabled" && e.deletedAt === null ? outcome.endpoint.disable : null;
  // Most attempts succeed on an endpoint that was not failing: its row is then left as it is.
  if (disable || outcome.endpoint.failingSince !== e.failingSince) {
    tx.update(webhookEndpoints)
      .set({ failingSince: outcome.endpoint.failingSince, ...(disable ? { status: "disabled" as const, disabledReason: disable, updatedAt: now } : {}) })
      .where(eq(webhookEndpoints.id, e.id))
      .run();
  }
  return { status: outcome.message.status, disabled: disable };
}

/** Several attempts' results in one write: the delivery loop hands over what finished meanwhile. */
export function recordAttempts(tx: Db, reports: readonly AttemptReport[]): ({ status: WebhookMessageStatus; disabled: string | null } | null)[] {
  return reports.map((r) => recordAttempt(tx, r));
}

/** Rows removed per step of pruneWebhooks (contract §14: short transactions). */
export const PRUNE_BATCH = 1000;

/**
 * One bounded step of retention: messages older than 30 days, then those of deleted endpoints, then
 * deleted endpoints left with none. Returns how many rows went (serve repeats while it is PRUNE_BATCH).
 */
export function pruneWebhooks(tx: Db, now: number): number {
  const c = rawClient(tx);
  let removed = c
    .query(`DELETE FROM webhook_messages WHERE seq IN (SELECT seq FROM webhook_messages WHERE created_at < ? ORDER BY created_at LIMIT ?)`)
    .run(now - MESSAGE_RETENTION_MS, PRUNE_BATCH).changes;
  if (removed < PRUNE_BATCH) {
    for (const { id } of c.query<{ id: string }, []>(`SELECT id FROM webhook_endpoints WHERE deleted_at IS NOT NULL`).all()) {
      const n = c
        .query(`DELETE FROM webhook_messages WHERE seq IN (SELECT seq FROM webhook_messages WHERE endpoint_id = ? LIMIT ?)`)
        .run(id, PRUNE_BATCH - removed).changes;
      removed += n;
      if (removed >= PRUNE_BATCH) break;
      c.query(`DELETE FROM webhook_endpoints WHERE id = ?`).run(id);
    }
  }
  return removed;
}

// ---- reads

export function listEndpoints(store: Store, scope: WebhookScope): { data: EndpointView[] } {
  const rows = store.db
    .select()
    .from(webhookEndpoints)
    .where(inScope(scope))
    .orderBy(webhookEndpoints.createdAt, webhookEndpoints.id)
    .all();
  return { data: rows.map(endpointView) };
}

export function getEndpoint(store: Store, scope: WebhookScope, id: string): EndpointView {
  return endpointView(findEndpoint(store.db, scope, id));
}

export const MESSAGE_STATUSES = ["pending", "succeeded", "failed"] as const satisfies readonly WebhookMessageStatus[];

/** contract §15: newest first; `after` is a cursor from this list (of this endpoint's scope). */
export function listMessages(
  store: Store,
  scope: WebhookScope,
  endpointId: string,
  q: { status?: WebhookMessageStatus; after?: string; limit: number },
): { data: MessageView[]; next_cursor: string | null; has_more: boolean } {
  return store.db.transaction((txn) => {
    const tx = txn as unknown as Db;
    findEndpoint(tx, scope, endpointId);
    const cursors = cursorsOf(tx);
    const before = q.after === undefined ? Number.MAX_SAFE_INTEGER : cursors.decode("message", scope, q.after, "/after");
    const rows = tx
      .select()
      .from(webhookMessages)
      .where(
        and(
          eq(webhookMessages.endpointId, endpointId),
          lt(webhookMessages.seq, before),
          ...(q.status ? [eq(webhookMessages.status, q.status)] : []),
        ),
      )
      .orderBy(desc(webhookMessages.seq))
      .limit(q.limit + 1)
      .all();
    const page = rows.slice(0, q.limit);
    const last = page[page.length - 1];
    return {
      data: page.map(messageView),
      next_cursor: last ? cursors.encode("message", scope, last.seq) : (q.after ?? null),
      has_more: rows.length > q.limit,
    };
  });
}

/** A message the delivery loop sends now, with what it needs to sign it. */
export interface DueMessage {
  id: string;
  endpointId: string;
  url: string;
  body: string;
  secretEnc: string;
  previousSecretEnc: string | null;
  previousSecretUntil: number | null;
}

/** Enabled endpoints with something due, for the delivery loop (webhooks/delivery.ts). */
export function dueMessages(store: Store, now: number, limitPerEndpoint: (endpointId: string) => number): DueMessage[] {
  const c = rawClient(store);
  const endpoints = c
    .query<{ id: string; url: string; secretEnc: string; previousSecretEnc: string | null; previousSecretUntil: number | null }, []>(
      `SELECT id, url, secret_enc AS secretEnc, previous_secret_enc AS previousSecretEnc, previous_secret_until AS previousSecretUntil
         FROM webhook_endpoints WHERE status = 'enabled' AND deleted_at IS NULL`,
    )
    .all();
  const due: DueMessage[] = [];
  for (const e of endpoints) {
    const limit = limitPerEndpoint(e.id);
    if (limit <= 0) continue;
    // webhook_messages_due_idx: (endpoint_id, next_attempt_at) WHERE status = 'pending'.
    const rows = c
      .query<{ id: string; body: string }, [string, number, number]>(
        `SELECT id, body FROM webhook_messages WHERE endpoint_id = ? AND status = 'pending' AND next_attempt_at <= ? ORDER BY next_attempt_at LIMIT ?`,
      )
      .all(e.id, now, limit);
    for (const r of rows) due.push({ ...r, endpointId: e.id, url: e.url, secretEnc: e.secretEnc, previousSecretEnc: e.previousSecretEnc, previousSecretUntil: e.previousSecretUntil });
  }
  return due;
}
