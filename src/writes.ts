// Every write the server makes, by name (contract §14). The writer thread (store/writer-thread.ts)
// runs them on the only writing connection, each in its own savepoint of a group commit; the HTTP
// thread and serve's background jobs ask for them through store/writer.ts with plain data, which
// crosses the thread by structured clone, and get plain data back after COMMIT. Each takes `now`
// from its caller: the one clock stays on the HTTP thread.
//
// The path of a payment event: device/events.ts (HTTP) → payments/ingest.ts (idempotency) →
// here (storeEvent) → payments/store-event.ts (duplicates, matching/service.ts, the insert). A
// notification event is read on the HTTP thread (notifications/recogniser.ts), then takes the same
// path through storeNotification (notifications/store.ts).
import { acknowledge, manualMatch, type ManualMatchRequest } from "./connector/matches.service";
import { syncOrders, type OrderInput } from "./connector/orders.service";
import { activateDevice, type NewDevice } from "./device/activation.service";
import { recordHeartbeat, reportOfflineDevices, type HeartbeatReport } from "./device/service";
import { expireOrders } from "./matching/service";
import { writeDeferredStatuses } from "./matching/status-writes";
import type { Scope } from "./matching/store";
import { rereadNotifications, storeNotification, type NotificationJob, type Rereading } from "./notifications/store";
import { moveDueRecentEvents } from "./payments/recent-events";
import { ingestStatementsOf, storeEvent, type StoreJob } from "./payments/store-event";
import type { Db } from "./store/db";
import {
  createEndpoint,
  deleteEndpoint,
  pruneWebhooks,
  queueTestMessage,
  recordAttempts,
  retryMessage,
  rotateSecret,
  updateEndpoint,
  type AttemptReport,
  type EndpointPatch,
  type NewEndpoint,
} from "./webhooks/endpoints.service";
import type { WebhookScope } from "./webhooks/outbox";
import { createSignInLink, openSession, revokeSession, setSessionEnvironment } from "./console/sessions";
import { createActivationCode } from "./device/codes";
import { revokeDevice } from "./device/service";
import { createKey, renameTenant, revokeKey } from "./tenants/service";
import type { Environment } from "./store/schema";

/** The one clock stays on the caller's thread: a service that asks a clock is given the caller's now. */
const at = (now: number) => ({ now: () => now });

export const writes = {
  /** contract §6: a payment event, its duplicate check and its match. */
  storeEvent: (tx: Db, job: StoreJob) => storeEvent(tx, ingestStatementsOf(tx), job),
  /** contract §16: a notification for the box to read, read by the caller; a payment is stored as storeEvent stores one. */
  storeNotification: (tx: Db, job: NotificationJob) => storeNotification(tx, job),
  /** contract §16: unrecognised notifications read again (at start, `cuadra notifications reparse`). */
  rereadNotifications: (tx: Db, a: { readings: Rereading[]; now: number }) => rereadNotifications(tx, a.readings, a.now),
  /** contract §9, §10: an order sync and the re-evaluation it causes. */
  syncOrders: (tx: Db, a: { scope: Scope; orders: OrderInput[]; now: number }) => syncOrders(tx, a.scope, a.orders, a.now),
  /** contract §11 */
  acknowledgeMatches: (tx: Db, a: { scope: Scope; through: string; now: number }) => acknowledge(tx, a.scope, a.through, a.now),
  /** contract §10: a person's match. */
  manualMatch: (tx: Db, a: { scope: Scope; request: ManualMatchRequest; now: number }) => manualMatch(tx, a.scope, a.request, a.now),
  /** contract §4 */
  activateDevice: (tx: Db, a: { now: number; letters: string; device: NewDevice; sealedSecret: string }) =>
    activateDevice(tx, a.now, a.letters, a.device, a.sealedSecret),
  /** contract §7 */
  recordHeartbeat: (tx: Db, a: HeartbeatReport) => recordHeartbeat(tx, a),
  /** contract §10: one bounded step of the expiry sweep. */
  expireOrders: (tx: Db, a: { now: number; limit?: number }) => expireOrders(tx, a.now, a.limit),
  /** Status changes a long re-evaluation left for later (matching/status-writes.ts); the writer thread runs it by itself. */
  writeDeferredStatuses: (tx: Db, _: Record<string, never>) => writeDeferredStatuses(tx),
  /** One batch of the recent-events mover (payments/recent-events.ts). */
  moveDueRecentEvents: (tx: Db, a: { now: number }) => moveDueRecentEvents(tx, a.now),
  /** contract §15: `device.offline` for phones that stopped being online (serve's liveness watch). */
  reportOfflineDevices: (tx: Db, a: { now: number }) => reportOfflineDevices(tx, a.now),
  /** contract §15: webhook endpoints. The secret arrives sealed (the HTTP thread made and sealed it). */
  createWebhookEndpoint: (tx: Db, a: { scope: WebhookScope; input: NewEndpoint; sealedSecret: string; now: number }) =>
    createEndpoint(tx, a.scope, a.input, a.sealedSecret, a.now),
  updateWebhookEndpoint: (tx: Db, a: { scope: WebhookScope; id: string; patch: EndpointPatch; now: number }) => updateEndpoint(tx, a.scope, a.id, a.patch, a.now),
  deleteWebhookEndpoint: (tx: Db, a: { scope: WebhookScope; id: string; now: number }) => deleteEndpoint(tx, a.scope, a.id, a.now),
  rotateWebhookSecret: (tx: Db, a: { scope: WebhookScope; id: string; sealedSecret: string; now: number }) =>
    rotateSecret(tx, a.scope, a.id, a.sealedSecret, a.now),
  queueWebhookTest: (tx: Db, a: { scope: WebhookScope; id: string; now: number }) => queueTestMessage(tx, a.scope, a.id, a.now),
  retryWebhookMessage: (tx: Db, a: { scope: WebhookScope; endpointId: string; messageId: string; now: number }) =>
    retryMessage(tx, a.scope, a.endpointId, a.messageId, a.now),
  /** The results of the delivery attempts that finished since the last such write (webhooks/delivery.ts). */
  recordWebhookAttempts: (tx: Db, a: { reports: AttemptReport[] }) => recordAttempts(tx, a.reports),
  /** contract §18: the console's sign-in links and sessions. */
  createConsoleLink: (tx: Db, a: { tenantId: string; ttlSeconds: number; now: number }) => createSignInLink(tx, a.tenantId, a.ttlSeconds, a.now),
  openConsoleSession: (tx: Db, a: { token: string; userAgent: string | null; now: number }) => openSession(tx, a.token, a.userAgent, a.now),
  revokeConsoleSession: (tx: Db, a: { tenantId: string; sessionId: string; now: number }) => revokeSession(tx, a.sessionId, a.now, a.tenantId),
  setConsoleEnvironment: (tx: Db, a: { sessionId: string; environment: Environment }) => setSessionEnvironment(tx, a.sessionId, a.environment),
  /** `cuadra tenant rename` (issue 15). */
  renameTenant: (tx: Db, a: { tenantId: string; name: string; now: number }) => renameTenant(tx, at(a.now), a.tenantId, a.name),
  /** contract §18 "Ajustes" and "Teléfonos": what the CLI does with `key create|revoke`, `code create`, `device revoke`, confined to the console's shop. */
  createKey: (tx: Db, a: { tenantId: string; environment: Environment; now: number }) => createKey(tx, at(a.now), a.tenantId, a.environment),
  revokeKey: (tx: Db, a: { tenantId: string; keyId: string; now: number }) => revokeKey(tx, at(a.now), a.keyId, a.tenantId),
  createActivationCode: (tx: Db, a: { scope: Scope; ttlSeconds: number; now: number }) =>
    createActivationCode(tx, at(a.now), a.scope.tenantId, a.scope.environment as Environment, a.ttlSeconds),
  revokeDevice: (tx: Db, a: { scope: Scope; deviceId: string; now: number }) => revokeDevice(tx, at(a.now), a.deviceId, a.scope),
  /** One bounded step of webhook retention (30 days; deleted endpoints). */
  pruneWebhooks: (tx: Db, a: { now: number }) => pruneWebhooks(tx, a.now),
} satisfies Record<string, (tx: Db, args: never) => unknown>;

export type Writes = typeof writes;
export type WriteName = keyof Writes;
export type WriteArgs<K extends WriteName> = Parameters<Writes[K]>[1];
export type WriteResult<K extends WriteName> = ReturnType<Writes[K]>;
