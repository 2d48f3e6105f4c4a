// Status changes of waiting payments (unmatched ↔ ambiguous) found by a re-evaluation. Both are
// waiting, and no rule of contract §10 reads which of the two a payment is: the distinction is for
// people (the §12 view). So a re-evaluation over a long backlog (an order synced days late on a
// common amount turns thousands of payments ambiguous) writes the first INLINE_STATUS_WRITES
// changes in its own transaction and leaves the rest to later writes of at most
// DEFERRED_STATUS_BATCH rows each, which the writer thread runs between other writes (contract §14:
// no transaction holds the writer long). Matches are never deferred.
//
// The deferred changes live in the writer thread's memory, keyed by payment: a newer decision about
// a payment replaces an older one not yet written, so a late write never undoes a newer one, and a
// payment that got matched meanwhile is left alone (setWaitingStatus touches waiting rows only).
// Lost in a crash, a change leaves a payment shown as unmatched that is ambiguous, until the next
// re-evaluation of its amount: the display lags, no decision does.
//
// Each change written queues its `payment.updated` webhook in the same transaction (contract §15):
// a change lost in a crash loses its message with it, and no message reports a change never made.
import { eventView } from "../connector/views";
import type { Db } from "../store/db";
import { hasSubscribers, queueWebhook } from "../webhooks/outbox";
import { changes, matchingStatements, type WaitingPayment } from "./store";

type WaitingStatus = WaitingPayment["matchStatus"];

/** Status changes a re-evaluation writes in its own transaction; the rest are deferred. */
export const INLINE_STATUS_WRITES = 1000;
/** Status changes per deferred write (about 35 ms of writes on the bench seed). */
export const DEFERRED_STATUS_BATCH = 1000;

type StatusWrite = { seq: number; status: WaitingStatus; now: number };

/** seq → status decided but not yet written, and when it was decided (the time its webhook says). */
const deferred = new Map<number, { status: WaitingStatus; now: number }>();

/**
 * Records the statuses a re-evaluation decided for `decided` (whose matchStatus is as stored):
 * each supersedes a deferred change of the same payment; the changes are written now up to
 * INLINE_STATUS_WRITES, and the rest deferred.
 */
export function writeStatuses(db: Db, decided: readonly { seq: number; stored: WaitingStatus; status: WaitingStatus }[], now: number): void {
  const toWrite: StatusWrite[] = [];
  for (const d of decided) {
    deferred.delete(d.seq);
    if (d.status === d.stored) continue;
    if (toWrite.length < INLINE_STATUS_WRITES) toWrite.push({ seq: d.seq, status: d.status, now });
    else deferred.set(d.seq, { status: d.status, now });
  }
  writeNow(db, toWrite);
}

export const deferredStatusCount = (): number => deferred.size;

/**
 * Writes up to `limit` deferred changes, oldest decisions first; returns how many were written.
 * Runs as a write of the writer; if it fails, its changes stay deferred.
 */
export function writeDeferredStatuses(db: Db, limit: number = DEFERRED_STATUS_BATCH): number {
  const batch: StatusWrite[] = [];
  for (const [seq, d] of deferred) {
    if (batch.length >= limit) break;
    batch.push({ seq, ...d });
  }
  writeNow(db, batch);
  for (const { seq, status } of batch) if (deferred.get(seq)?.status === status) deferred.delete(seq);
  return batch.length;
}

function writeNow(db: Db, rows: readonly StatusWrite[]): number {
  const s = matchingStatements(db);
  let written = 0;
  for (const status of ["unmatched", "ambiguous"] as const) {
    const seqs = rows.filter((r) => r.status === status).map((r) => r.seq);
    if (seqs.length > 0) written += changes(s.setWaitingStatus.run({ status, seqs: JSON.stringify(seqs) }));
  }
  if (written > 0 && hasSubscribers(db, "payment.updated")) {
    for (const r of rows) {
      const event = s.eventBySeq.get({ seq: r.seq });
      // setWaitingStatus leaves a payment matched meanwhile alone: only real changes are reported.
      if (event && event.matchStatus === r.status) queueWebhook(db, event, "payment.updated", () => eventView(event), r.now);
    }
  }
  return written;
}
