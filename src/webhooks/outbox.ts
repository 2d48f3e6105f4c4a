// The outbox of webhook messages (contract §15). Whatever writes a change that a webhook reports
// calls queueWebhook in the same transaction: a committed change always has its messages, and a
// change that rolls back leaves none. webhooks/delivery.ts sends them.
import type { Statement } from "bun:sqlite";
import { newTimeOrderedId } from "../ids";
import { perConnection, type Db } from "../store/db";
import type { Environment } from "../store/schema";

export const WEBHOOK_EVENT_TYPES = [
  "match.created",
  "payment.received",
  "payment.updated",
  "device.offline",
  "device.online",
  "notification.unrecognized",
  "webhook.test",
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** contract §15: a message body is at most 64 KiB. */
export const MAX_BODY_BYTES = 64 * 1024;

export interface WebhookScope {
  tenantId: string;
  environment: Environment;
}

interface Subscriber {
  id: string;
  events: string;
}

const outboxStatements = perConnection((c) => {
  return {
    subscribers: c.prepare(
      `SELECT id, events FROM webhook_endpoints WHERE tenant_id = ? AND environment = ? AND status = 'enabled' AND deleted_at IS NULL`,
    ) as Statement<Subscriber, [string, string]>,
    anyEnabled: c.prepare(`SELECT id, events FROM webhook_endpoints WHERE status = 'enabled' AND deleted_at IS NULL`) as Statement<Subscriber, []>,
    endpointInScope: c.prepare(
      `SELECT id, events FROM webhook_endpoints WHERE id = ? AND tenant_id = ? AND environment = ? AND deleted_at IS NULL`,
    ) as Statement<Subscriber, [string, string, string]>,
    insert: c.prepare(
      `INSERT INTO webhook_messages (id, endpoint_id, tenant_id, environment, type, body, status, attempts, created_at, next_attempt_at)
       VALUES (?, ?, ?, ?, ?, ?, 'pending', 0, ?, ?)`,
    ) as Statement<unknown, [string, string, string, string, string, string, number, number]>,
  };
});

/** Parsed `events` lists, by their JSON text (endpoints change rarely; events arrive often). */
const parsedEvents = new Map<string, readonly string[]>();
function subscribes(s: Subscriber, type: WebhookEventType): boolean {
  let list = parsedEvents.get(s.events);
  if (!list) {
    list = JSON.parse(s.events) as string[];
    if (parsedEvents.size > 1000) parsedEvents.clear();
    parsedEvents.set(s.events, list);
  }
  return list.includes(type);
}

/** Whether any enabled endpoint of any scope takes `type`: lets a batch of changes skip reading what it changed. */
export function hasSubscribers(tx: Db, type: WebhookEventType): boolean {
  return outboxStatements(tx).anyEnabled.all().some((e) => subscribes(e, type));
}

/** The body every attempt of a message sends: `{"type","timestamp","data"}`. */
export function messageBody(type: WebhookEventType, now: number, data: unknown): string {
  const body = JSON.stringify({ type, timestamp: new Date(now).toISOString(), data });
  if (Buffer.byteLength(body) > MAX_BODY_BYTES) throw new Error(`a ${type} webhook body would be ${Buffer.byteLength(body)} bytes (at most ${MAX_BODY_BYTES})`);
  return body;
}

/**
 * Queues one message of `type` for each enabled endpoint of the scope that subscribes to it (or for
 * the endpoint `onlyEndpoint`, whatever its list: the test message). `data` is built only when
 * someone will receive it, so a shop without webhooks pays one indexed read per change.
 * Returns the new message ids.
 */
export function queueWebhook(tx: Db, scope: WebhookScope, type: WebhookEventType, data: () => unknown, now: number, onlyEndpoint?: string): string[] {
  const s = outboxStatements(tx);
  const targets =
    onlyEndpoint !== undefined
      ? [s.endpointInScope.get(onlyEndpoint, scope.tenantId, scope.environment)].filter((e): e is Subscriber => e !== null)
      : s.subscribers.all(scope.tenantId, scope.environment).filter((e) => subscribes(e, type));
  if (targets.length === 0) return [];
  const body = messageBody(type, now, data());
  return targets.map((endpoint) => {
    const id = newTimeOrderedId("msg", now);
    s.insert.run(id, endpoint.id, scope.tenantId, scope.environment, type, body, now, now);
    return id;
  });
}
