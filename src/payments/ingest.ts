// Receiving an event (contract §6, §16): idempotency (replays, keys in use, reused keys) and the
// semantic checks, then the write (store-event.ts, notifications/store.ts) through the one writer.
// Used by POST /device/v1/events and by the connector's POST /connector/v1/test/payments.
import type { Clock } from "../clock";
import { sha256Hex } from "../ids";
import { ApiError } from "../http/errors";
import { perConnection, type Store } from "../store/db";
import type { Writer } from "../store/writer";
import { notificationHashOf, type NotificationEvent } from "../notifications/model";
import type { Recognise } from "../notifications/recogniser";
import { canonicalJson, type PaymentEvent } from "./model";
import { findExisting, ingestStatementsOf, type IngestScope, type StoreOutcome, type StoredAnswer } from "./store-event";

export interface IngestResult {
  status: number;
  body: Record<string, unknown>;
  /** true when this is the stored first answer of an earlier identical request. */
  replayed: boolean;
}

/** SHA-256 of the canonical body: what tells a replay from a reused idempotency key. */
export const bodyHashOf = (body: PaymentEvent): string => sha256Hex(canonicalJson(body));

/** A payment event (schema-validated by parsePaymentEvent), once: see ingestOnce. */
export async function ingestPayment(
  deps: { store: Store; clock: Clock; writer: Writer },
  scope: IngestScope,
  body: PaymentEvent,
  /** What tells a replay from a reused key, when not the body itself (a test payment's defaults). */
  identity: unknown = body,
): Promise<IngestResult> {
  return ingestOnce(deps, scope, body.event_id, bodyHashOf(identity as PaymentEvent), (hash, now) =>
    deps.writer.run("storeEvent", { scope, body, hash, now }),
  );
}

/**
 * Receives a notification event (contract §16) exactly as a payment event: the same idempotency, one
 * space of event_ids per phone. `recognise` reads it here, on the caller's thread; the writer stores
 * the reading.
 */
export async function ingestNotification(
  deps: { store: Store; clock: Clock; writer: Writer; recognise: Recognise },
  scope: IngestScope & { deviceId: string },
  body: NotificationEvent,
): Promise<IngestResult> {
  const reading = deps.recognise(body.raw);
  return ingestOnce(deps, scope, body.event_id, notificationHashOf(deps.store, body), (hash, now) =>
    deps.writer.run("storeNotification", { scope, body, hash, now, reading }),
  );
}

/**
 * One event of either kind: the stored first answer when this scope has seen its event_id before,
 * else `write`. Failures are thrown as ApiError: 409 idempotency_key_in_use while the same event is
 * being stored, 422 idempotency_key_reused for the same event_id with a different body, and the
 * 400s of the write's checks. Those checks run only for new events, so a replay is answered at any
 * later time (deduplication is permanent). Resolves only after the event is committed to disk.
 */
async function ingestOnce(
  deps: { store: Store; clock: Clock },
  scope: IngestScope,
  eventId: string,
  hash: string,
  write: (hash: string, now: number) => Promise<StoreOutcome<unknown>>,
): Promise<IngestResult> {
  const { store } = deps;
  const now = deps.clock.now();
  const key = scope.deviceId !== null ? `d\n${scope.deviceId}\n${eventId}` : `t\n${scope.tenantId}\n${scope.environment}\n${eventId}`;
  const inFlight = inFlightOf(store);
  if (inFlight.has(key)) {
    // Another copy is with the writer. If the event is already stored, that copy is a replay, and
    // so is this one; only a first receipt still being stored makes copies wait (contract §6).
    const existing = findExisting(ingestStatementsOf(store), scope, eventId);
    if (existing) return replayOf(existing, hash, eventId);
    throw new ApiError(
      "idempotency_key_in_use",
      `Event ${eventId} is still being stored; retry in a second`,
      {},
      { "retry-after": "1" },
    );
  }
  inFlight.add(key);
  try {
    const stored = await write(hash, now);
    if ("replay" in stored) return replayOf(stored.replay, hash, eventId);
    return { status: 201, body: stored.receipt as Record<string, unknown>, replayed: false };
  } finally {
    inFlight.delete(key);
  }
}

function replayOf(row: StoredAnswer, hash: string, eventId: string): IngestResult {
  if (row.body_hash !== hash) {
    throw new ApiError(
      "idempotency_key_reused",
      `Event ${eventId} was already received with a different body; send a new event_id for a new event`,
    );
  }
  return { status: row.response_status, body: JSON.parse(row.response_body), replayed: true };
}

/** Events being stored right now, per store: the 409 idempotency_key_in_use of contract §6. */
const inFlightOf = perConnection(() => new Set<string>());
