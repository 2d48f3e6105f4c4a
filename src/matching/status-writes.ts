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
import { changes, type MatchingStatements, type WaitingPayment } from "./store";

type WaitingStatus = WaitingPayment["matchStatus"];

/** Status changes a re-evaluation writes in its own transaction; the rest are deferred. */
export const INLINE_STATUS_WRITES = 1000;
/** Status changes per deferred write (about 35 ms of writes on the bench seed). */
export const DEFERRED_STATUS_BATCH = 1000;

/** seq → status decided but not yet written. */
const deferred = new Map<number, WaitingStatus>();

/**
 * Records the statuses a re-evaluation decided for `decided` (whose matchStatus is as stored):
 * each supersedes a deferred change of the same payment; the changes are written now up to
 * INLINE_STATUS_WRITES, and the rest deferred.
 */
export function writeStatuses(s: MatchingStatements, decided: readonly { seq: number; stored: WaitingStatus; status: WaitingStatus }[]): void {
  const now: { seq: number; status: WaitingStatus }[] = [];
  for (const d of decided) {
    deferred.delete(d.seq);
    if (d.status === d.stored) continue;
    if (now.length < INLINE_STATUS_WRITES) now.push(d);
    else deferred.set(d.seq, d.status);
  }
  writeNow(s, now);
}

export const deferredStatusCount = (): number => deferred.size;

/**
 * Writes up to `limit` deferred changes, oldest decisions first; returns how many were written.
 * Runs as a write of the writer; if it fails, its changes stay deferred.
 */
export function writeDeferredStatuses(s: MatchingStatements, limit: number = DEFERRED_STATUS_BATCH): number {
  const batch: { seq: number; status: WaitingStatus }[] = [];
  for (const [seq, status] of deferred) {
    if (batch.length >= limit) break;
    batch.push({ seq, status });
  }
  writeNow(s, batch);
  for (const { seq, status } of batch) if (deferred.get(seq) === status) deferred.delete(seq);
  return batch.length;
}

function writeNow(s: MatchingStatements, rows: readonly { seq: number; status: WaitingStatus }[]): number {
  let written = 0;
  for (const status of ["unmatched", "ambiguous"] as const) {
    const seqs = rows.filter((r) => r.status === status).map((r) => r.seq);
    if (seqs.length > 0) written += changes(s.setWaitingStatus.run({ status, seqs: JSON.stringify(seqs) }));
  }
  return written;
}
