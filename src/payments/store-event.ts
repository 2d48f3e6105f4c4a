// Writing one payment event inside the group commit's transaction (contract §6): the stored answer
// of a replay, or else the checks of a new event, duplicates across phones, the matching engine's
// decision, the insert in its final state and the first answer kept for replays. Runs on whichever
// thread owns the writing connection (store/writer.ts).
import type { Statement } from "bun:sqlite";
import { decideNewEvent, recordAutoMatch, type MatchOutcome } from "../matching/service";
import { perConnection, type Db } from "../store/db";
import { hourOf, inBothPartitions, OCCURRED_HOUR, type Environment } from "../store/schema";
import { findOriginal, DUPLICATE_WINDOW_MS, type Report, type StoredReport } from "./duplicates";
import { checkPaymentEvent, type EventReceipt, type PaymentEvent } from "./model";
import { eventView } from "../connector/views";
import { matchingStatements } from "../matching/store";
import { queueWebhook } from "../webhooks/outbox";

export interface IngestScope {
  tenantId: string;
  environment: Environment;
  /** null for events that no phone sent (test payments). */
  deviceId: string | null;
}

/** One event to store: plain data, so that it can cross to the writer thread. */
export interface StoreJob {
  scope: IngestScope;
  /** Schema-validated (parsePaymentEvent); storeEvent runs checkPaymentEvent on new events. */
  body: PaymentEvent;
  /** bodyHashOf(body). */
  hash: string;
  /** Receipt time, from the HTTP thread's clock. */
  now: number;
}

/** The first answer of a new event, or the stored one of an event seen before. */
export type StoreOutcome<R = EventReceipt> = { receipt: R } | { replay: StoredAnswer };

/** The first answer to an event, kept for its replays. */
export interface StoredAnswer {
  body_hash: string;
  response_status: number;
  response_body: string;
}

/**
 * The stored first answer to this scope's `eventId`, if any. A phone's event_ids are one space for
 * both kinds (contract §6, §16): a notification that was no payment has no event row, so its own
 * table is asked too.
 */
export function findExisting(stmts: Statements, scope: IngestScope, eventId: string): StoredAnswer | null {
  if (scope.deviceId === null) return stmts.findWithoutDevice.get(eventId, scope.tenantId, scope.environment);
  return stmts.findByDevice.get(scope.deviceId, eventId) ?? stmts.findNotification.get(scope.deviceId, eventId);
}

/** Runs inside the commit queue's transaction: everything here is synchronous. */
export function storeEvent(tx: Db, stmts: Statements, job: StoreJob): StoreOutcome {
  const { scope, body, hash, now } = job;
  // A replay is answered before any check: deduplication is permanent, though the event may be
  // too old by now to be accepted as new (contract §6).
  const existing = findExisting(stmts, scope, body.event_id);
  if (existing) return { replay: existing };
  checkPaymentEvent(body, now);
  const stored = storePayment(tx, stmts, scope, body, hash, now, (match): EventReceipt => ({
    event_id: body.event_id,
    status: "accepted",
    received_at: now,
    match,
  }));
  return "replay" in stored ? stored : { receipt: stored.answer };
}

/**
 * Stores a new payment, checked already, and matches it: duplicates across phones, the matching
 * engine's decision, the insert in its final state with `answer` (built from the match) kept for
 * replays, the match, and `payment.received`. The one path of every payment: a phone's event, a test
 * payment, a notification read as a payment (at once or when read again).
 */
export function storePayment<A>(
  tx: Db,
  stmts: Statements,
  scope: IngestScope,
  body: PaymentEvent,
  hash: string,
  now: number,
  answer: (match: EventReceipt["match"]) => A,
): { seq: number; answer: A } | { replay: StoredAnswer } {
  const report: Report = {
    deviceId: scope.deviceId,
    source: body.source,
    amount: body.amount,
    occurredAt: body.occurred_at,
    payerName: body.payer_name ?? null,
    securityCode: body.security_code ?? null,
    reference: body.reference ?? null,
  };
  const original = scope.deviceId !== null ? findOriginal(report, duplicateCandidates(stmts, scope, report)) : null;
  // contract §6: a duplicate is stored and answered, and never matches an order. Anything else is
  // decided now (from the orders alone), so the row below is written once, in its final state.
  const outcome: MatchOutcome | { status: "duplicate"; orderId: null } = original
    ? { status: "duplicate", orderId: null }
    : decideNewEvent(tx, now, scope, {
        amount: body.amount,
        currency: body.currency,
        occurredAt: body.occurred_at,
        payerName: report.payerName,
        securityCode: report.securityCode,
      });
  const stored = answer({ status: outcome.status, order_id: outcome.orderId });

  const inserted = stmts.insert.get(
    body.event_id,
    scope.deviceId,
    scope.tenantId,
    scope.environment,
    body.kind,
    body.source,
    body.amount,
    body.currency,
    report.payerName,
    report.securityCode,
    report.reference,
    body.occurred_at,
    now,
    body.raw ? JSON.stringify(body.raw) : null,
    hash,
    201,
    JSON.stringify(stored),
    outcome.status,
    outcome.orderId,
    original?.eventId ?? null,
  );
  if (!inserted) {
    // Another writer stored this event first: the recent partition's unique index decides, not the
    // in-process map. (A key among old events was found by findExisting above; were it not, the
    // trigger of migration 0008 would refuse the insert.)
    const row = findExisting(stmts, scope, body.event_id);
    if (!row) throw new Error("event insert conflicted but no row was found");
    return { replay: row };
  }

  if (outcome.status === "matched") {
    recordAutoMatch(
      tx,
      now,
      {
        seq: inserted.seq,
        tenantId: scope.tenantId,
        environment: scope.environment,
        eventId: body.event_id,
        deviceId: scope.deviceId,
        amount: body.amount,
        currency: body.currency,
        source: body.source,
        payerName: report.payerName,
        securityCode: report.securityCode,
        reference: report.reference,
        occurredAt: body.occurred_at,
      },
      outcome.orderId,
    );
  }
  if (scope.deviceId !== null) stmts.touchDevice.run(now, scope.deviceId);
  queueWebhook(tx, scope, "payment.received", () => eventView(matchingStatements(tx).eventBySeq.get({ seq: inserted.seq })!), now);
  return { seq: inserted.seq, answer: stored };
}

function duplicateCandidates(stmts: Statements, scope: IngestScope, r: Report): StoredReport[] {
  const from = r.occurredAt - DUPLICATE_WINDOW_MS;
  const to = r.occurredAt + DUPLICATE_WINDOW_MS;
  const byDetails = stmts.dupByDetails.all(
    scope.tenantId,
    scope.environment,
    hourOf(from),
    hourOf(to),
    r.source,
    r.amount,
    from,
    to,
    r.payerName,
    r.deviceId,
  );
  const byReference = r.reference !== null ? stmts.dupByReference.all(scope.tenantId, scope.environment, r.source, r.reference, r.deviceId) : [];
  return [...byReference, ...byDetails];
}

// ---- prepared statements (the hot path; stack notes)

export interface Statements {
  findByDevice: Statement<StoredAnswer, [string, string]>;
  findWithoutDevice: Statement<StoredAnswer, [eventId: string, tenantId: string, environment: string]>;
  findNotification: Statement<StoredAnswer, [string, string]>;
  insert: Statement<{ seq: number }, any[]>;
  touchDevice: Statement<unknown, [number, string]>;
  dupByReference: Statement<StoredReport, [string, string, string, string, string | null]>;
  dupByDetails: Statement<StoredReport, [string, string, number, number, string, number, number, number, string | null, string | null]>;
}

const REPORT_COLUMNS = `seq, event_id AS eventId, device_id AS deviceId, source, amount, occurred_at AS occurredAt,
  payer_name AS payerName, security_code AS securityCode, reference, match_status AS matchStatus`;
const ANSWER_COLUMNS = "body_hash, response_status, response_body";
/** Enough candidates for any real shop; the rules pick among them. */
const CANDIDATE_LIMIT = 200;

/** The statements' text (exported for the query-plan tests, test/payments-query-plans.test.ts). */
export const INGEST_SQL = {
  // events_recent_device_event_uq, then events_device_event_uq (schema.ts: the `recent` partitions).
  findByDevice: `${inBothPartitions(`SELECT ${ANSWER_COLUMNS} FROM events WHERE device_id = ?1 AND event_id = ?2`)} LIMIT 1`,
  // The same indexes at (device_id IS NULL, event_id): test payments of every scope share the NULL
  // device, so the scope is checked on the few rows with this event_id.
  findWithoutDevice: `${inBothPartitions(
    `SELECT seq, ${ANSWER_COLUMNS} FROM events WHERE device_id IS NULL AND event_id = ?1 AND tenant_id = ?2 AND environment = ?3`,
  )} ORDER BY seq LIMIT 1`,
  // notifications_device_event_uq (contract §16).
  findNotification: `SELECT ${ANSWER_COLUMNS} FROM notifications WHERE device_id = ? AND event_id = ?`,
  // A new event is recent. The conflict target is the recent partition's unique index; a key in the
  // old partition is refused by a trigger (migration 0008) before this is reached, and storeEvent
  // looked it up first anyway.
  insert: `INSERT INTO events (event_id, device_id, tenant_id, environment, kind, source, amount, currency, payer_name,
       security_code, reference, occurred_at, received_at, raw, body_hash, response_status, response_body, match_status, order_id,
       duplicate_of, recent)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1)
     ON CONFLICT (device_id, event_id) WHERE recent = 1 DO NOTHING RETURNING seq`,
  touchDevice: `UPDATE devices SET last_seen_at = ? WHERE id = ?`,
  // events_recent_dup_reference_idx, then events_dup_reference_idx (partial: reference IS NOT NULL,
  // implied by reference = ?).
  dupByReference: `${inBothPartitions(
    `SELECT ${REPORT_COLUMNS} FROM events WHERE tenant_id = ?1 AND environment = ?2 AND source = ?3 AND reference = ?4
       AND device_id IS NOT NULL AND device_id <> ?5`,
  )} LIMIT ${CANDIDATE_LIMIT}`,
  // events_hour_amount_idx: the ±120 s range lies in one hour or two (one seek each), source and
  // payer_name filtered inside the index (IS: two reports without a payer name have the same one, as
  // in duplicateRule).
  dupByDetails: `SELECT ${REPORT_COLUMNS} FROM events WHERE tenant_id = ? AND environment = ? AND ${OCCURRED_HOUR} IN (?, ?)
       AND source = ? AND amount = ? AND occurred_at BETWEEN ? AND ? AND payer_name IS ? AND device_id IS NOT NULL AND device_id <> ?
     LIMIT ${CANDIDATE_LIMIT}`,
} as const;

export const ingestStatementsOf = perConnection((db): Statements => {
  return {
    findByDevice: db.prepare(INGEST_SQL.findByDevice),
    findWithoutDevice: db.prepare(INGEST_SQL.findWithoutDevice),
    findNotification: db.prepare(INGEST_SQL.findNotification),
    insert: db.prepare(INGEST_SQL.insert),
    touchDevice: db.prepare(INGEST_SQL.touchDevice),
    dupByReference: db.prepare(INGEST_SQL.dupByReference),
    dupByDetails: db.prepare(INGEST_SQL.dupByDetails),
  };
});

