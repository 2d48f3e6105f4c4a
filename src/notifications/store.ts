// The writes of contract §16, inside the commit queue's transaction: a new notification, and the
// notifications read again. The reading itself (recogniser.ts) is done by the caller, which hands
// plain data over: the writer thread knows no wallet formats, so the box's formats, or a test's,
// are those of whoever asks.
import type { Statement } from "bun:sqlite";
import { findExisting, ingestStatementsOf, storePayment, type IngestScope, type StoreOutcome } from "../payments/store-event";
import { checkOccurredAt, MAX_AGE_MS, type PaymentEvent } from "../payments/model";
import { perConnection, type Db } from "../store/db";
import type { Environment, NotificationStatus } from "../store/schema";
import { queueWebhook } from "../webhooks/outbox";
import { NOTIFICATION_POSTED, receiptOf, type NotificationEvent, type NotificationReceipt } from "./model";
import type { ReadPayment, Reading } from "./recogniser";

export interface NotificationJob {
  scope: IngestScope & { deviceId: string };
  body: NotificationEvent;
  /** notificationHashOf(body). */
  hash: string;
  now: number;
  /** What the caller's recogniser read. */
  reading: Reading;
}

/** The payment event a notification read as a payment stands for: same event_id, device and time. */
function paymentEventOf(eventId: string, occurredAt: number, raw: NotificationEvent["raw"], p: ReadPayment): PaymentEvent {
  const e: PaymentEvent = { event_id: eventId, kind: NOTIFICATION_POSTED, occurred_at: occurredAt, source: p.source, amount: p.amount, currency: p.currency, raw };
  if (p.payer_name !== null) e.payer_name = p.payer_name;
  if (p.security_code !== null) e.security_code = p.security_code;
  if (p.reference !== null) e.reference = p.reference;
  return e;
}

/** contract §16: stores a notification event, and the payment it is, if it is one. */
export function storeNotification(tx: Db, job: NotificationJob): StoreOutcome<NotificationReceipt> {
  const { scope, body, hash, now, reading } = job;
  const stmts = ingestStatementsOf(tx);
  const existing = findExisting(stmts, scope, body.event_id);
  if (existing) return { replay: existing };
  checkOccurredAt(body.occurred_at, now);
  let receipt: NotificationReceipt;
  if (reading.status === "payment") {
    const stored = storePayment(tx, stmts, scope, paymentEventOf(body.event_id, body.occurred_at, body.raw, reading.payment), hash, now, (match) =>
      receiptOf(body, reading, now, match),
    );
    if ("replay" in stored) return stored;
    receipt = stored.answer;
  } else {
    receipt = receiptOf(body, reading, now, null);
    stmts.touchDevice.run(now, scope.deviceId);
  }
  const kept = reading.status !== "not_a_payment"; // its title and text may be private: not kept
  const s = notificationStatements(tx);
  s.insert.run(
    body.event_id,
    scope.deviceId,
    scope.tenantId,
    scope.environment,
    body.raw.package,
    kept ? (body.raw.title ?? null) : null,
    kept ? body.raw.text : null,
    reading.status,
    reading.format,
    body.occurred_at,
    now,
    hash,
    201,
    JSON.stringify(receipt),
  );
  if (reading.status === "unrecognized") {
    queueWebhook(tx, scope, "notification.unrecognized", () => unrecognizedData(body.event_id, scope.deviceId, body.raw, now), now);
  }
  return { receipt };
}

/** contract §15: the data of `notification.unrecognized`. */
function unrecognizedData(eventId: string, deviceId: string, raw: NotificationEvent["raw"], receivedAt: number) {
  return { event_id: eventId, device_id: deviceId, package: raw.package, title: raw.title ?? null, text: raw.text, received_at: receivedAt };
}

// ---- reading again

/** A stored unrecognised notification and what a recogniser reads in it now. */
export interface Rereading {
  seq: number;
  reading: Reading;
}

export interface RereadCounts {
  /** Became payments: stored and matched. */
  payments: number;
  /** Became not_a_payment: their text was dropped. */
  not_a_payment: number;
  /** Read as payments older than 30 days (contract §16): left as they were. */
  too_old: number;
  /** Could not be written (each in its own savepoint): left as they were, tried again next time. */
  failed: number;
}

/**
 * contract §16: applies new readings of unrecognised notifications. A payment no more than 30 days
 * old is stored and matched as if it had just arrived, with its event_id, device and time, and the
 * first answer kept for replays; a not_a_payment loses its text; a new format of an unrecognised
 * one (Android's redaction) is recorded. A row no longer unrecognised (read by another run) is left.
 */
export function rereadNotifications(tx: Db, readings: Rereading[], now: number): RereadCounts {
  const s = notificationStatements(tx);
  const stmts = ingestStatementsOf(tx);
  const counts: RereadCounts = { payments: 0, not_a_payment: 0, too_old: 0, failed: 0 };
  for (const { seq, reading } of readings) {
    // One row's failure must not undo the others, nor stop every later start at the same row.
    try {
      tx.transaction((row) => rereadOne(row as unknown as Db, s, stmts, seq, reading, now, counts));
    } catch {
      counts.failed++;
    }
  }
  return counts;
}

/** One notification read again, in its own savepoint (rereadNotifications). */
function rereadOne(
  tx: Db,
  s: ReturnType<typeof notificationStatements>,
  stmts: ReturnType<typeof ingestStatementsOf>,
  seq: number,
  reading: Reading,
  now: number,
  counts: RereadCounts,
): void {
  const row = s.unrecognizedBySeq.get(seq);
  if (!row) return;
  if (reading.status === "payment") {
    if (row.occurred_at < now - MAX_AGE_MS) {
      counts.too_old++;
      return;
    }
    const scope = { tenantId: row.tenant_id, environment: row.environment, deviceId: row.device_id };
    // An event of this id cannot have been stored since (ids are one space per phone), but were
    // one there, the notification stays as it is rather than the write failing.
    if (stmts.findByDevice.get(row.device_id, row.event_id)) return;
    const raw = { package: row.package, ...(row.title !== null ? { title: row.title } : {}), text: row.text ?? "" };
    const first = JSON.parse(row.response_body) as NotificationReceipt;
    // Replays keep getting the first answer (contract §6): it is what the payment's row keeps too.
    const stored = storePayment(tx, stmts, scope, paymentEventOf(row.event_id, row.occurred_at, raw, reading.payment), row.body_hash, now, () => first);
    if ("replay" in stored) return;
    s.setReading.run("payment", reading.format, seq);
    counts.payments++;
  } else if (reading.status === "not_a_payment") {
    s.forget.run(reading.format, seq);
    counts.not_a_payment++;
  } else if (reading.format !== row.format) {
    s.setReading.run("unrecognized", reading.format, seq);
  }
}

// ---- statements

export interface NotificationRow {
  seq: number;
  event_id: string;
  device_id: string;
  tenant_id: string;
  environment: Environment;
  package: string;
  title: string | null;
  text: string | null;
  status: NotificationStatus;
  format: string | null;
  occurred_at: number;
  received_at: number;
  body_hash: string;
  response_body: string;
}

/** The read-again queue: unrecognised notifications after a position, in order (notifications_unrecognized_idx). */
export const UNRECOGNIZED_AFTER_SQL = `SELECT seq, package, title, text, format, occurred_at FROM notifications WHERE status = 'unrecognized' AND seq > ? ORDER BY seq LIMIT ?`;

export const notificationStatements = perConnection((db) => ({
  insert: db.prepare(
    `INSERT INTO notifications (event_id, device_id, tenant_id, environment, package, title, text, status, format, occurred_at, received_at,
       body_hash, response_status, response_body) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ) as Statement<unknown, any[]>,
  unrecognizedBySeq: db.prepare(`SELECT * FROM notifications WHERE seq = ? AND status = 'unrecognized'`) as Statement<NotificationRow, [number]>,
  setReading: db.prepare(`UPDATE notifications SET status = ?, format = ? WHERE seq = ?`) as Statement<unknown, [string, string | null, number]>,
  forget: db.prepare(`UPDATE notifications SET status = 'not_a_payment', format = ?, title = NULL, text = NULL WHERE seq = ?`) as Statement<
    unknown,
    [string, number]
  >,
  unrecognizedAfter: db.prepare(UNRECOGNIZED_AFTER_SQL) as Statement<Pick<NotificationRow, "seq" | "package" | "title" | "text" | "format" | "occurred_at">, [number, number]>,
}));
