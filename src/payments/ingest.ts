// Receiving a payment event (contract §6): idempotency (replays, keys in use, reused keys) and the
// semantic checks, then the write (store-event.ts) through the one writer. Used by
// POST /device/v1/events and by the connector's POST /connector/v1/test/payments.
import type { Clock } from "../clock";
import { sha256Hex } from "../ids";
import { ApiError } from "../http/errors";
import { perConnection, type Store } from "../store/db";
import type { Writer } from "../store/writer";
import { canonicalJson, type PaymentEvent } from "./model";
import { findExisting, ingestStatementsOf, type IngestScope, type StoredAnswer } from "./store-event";

export interface IngestResult {
  status: number;
  body: Record<string, unknown>;
  /** true when this is the stored first answer of an earlier identical request. */
  replayed: boolean;
}

/** SHA-256 of the canonical body: what tells a replay from a reused idempotency key. */
export const bodyHashOf = (body: PaymentEvent): string => sha256Hex(canonicalJson(body));

/**
 * Stores `body` (already schema-validated, see parsePaymentEvent) or answers the stored first
 * response when this scope has seen its event_id before. Failures are thrown as ApiError:
 * 409 idempotency_key_in_use while the same event is being stored, 422 idempotency_key_reused for
 * the same event_id with a different body, and the 400s of checkPaymentEvent. The semantic checks
 * run only for new events, so a replay is answered at any later time (deduplication is permanent).
 * Resolves only after the event is committed to disk.
 */
export async function ingestPayment(
  deps: { store: Store; clock: Clock; writer: Writer },
  scope: IngestScope,
  body: PaymentEvent,
  /** What tells a replay from a reused key, when not the body itself (a test payment's defaults). */
  identity: unknown = body,
): Promise<IngestResult> {
  const { store } = deps;
  const now = deps.clock.now();
  const hash = bodyHashOf(identity as PaymentEvent);
  const key = scope.deviceId !== null ? `d\n${scope.deviceId}\n${body.event_id}` : `t\n${scope.tenantId}\n${scope.environment}\n${body.event_id}`;
  const inFlight = inFlightOf(store);
  if (inFlight.has(key)) {
    // Another copy is with the writer. If the event is already stored, that copy is a replay, and
    // so is this one; only a first receipt still being stored makes copies wait (contract §6).
    const existing = findExisting(ingestStatementsOf(store), scope, body.event_id);
    if (existing) return replayOf(existing, hash, body.event_id);
    throw new ApiError(
      "idempotency_key_in_use",
      `Event ${body.event_id} is still being stored; retry in a second`,
      {},
      { "retry-after": "1" },
    );
  }
  inFlight.add(key);
  try {
    const stored = await deps.writer.run("storeEvent", { scope, body, hash, now });
    if ("replay" in stored) return replayOf(stored.replay, hash, body.event_id);
    return { status: 201, body: stored.receipt as unknown as Record<string, unknown>, replayed: false };
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
