// Reading unrecognised notifications again (contract §16): at every start of serve, and by
// `cuadra notifications reparse`. The rows are read and recognised by the caller, in batches, and
// only the ones whose reading changed are handed to the write (rereadNotifications), so that a box
// with many notifications it still cannot read holds the writer for one batch at a time.
import type { Clock } from "../clock";
import type { Db, Store } from "../store/db";
import type { Writer } from "../store/writer";
import { MAX_AGE_MS } from "../payments/model";
import type { Recognise } from "./recogniser";
import { notificationStatements, type RereadCounts, type Rereading } from "./store";

export interface ReparseSummary extends RereadCounts {
  /** Unrecognised notifications read again. */
  read: number;
}

/** Rows per write: each may store and match a payment, and the writer serves requests between them. */
const BATCH = 100;

/**
 * Reads every unrecognised notification of `db` again with `recognise`; `apply` writes each batch's
 * changed readings (the writer's rereadNotifications, or the command's own transaction).
 */
export async function reparseNotifications(
  db: Db,
  recognise: Recognise,
  now: number,
  apply: (readings: Rereading[]) => Promise<RereadCounts> | RereadCounts,
): Promise<ReparseSummary> {
  const summary: ReparseSummary = { read: 0, payments: 0, not_a_payment: 0, too_old: 0, failed: 0 };
  const s = notificationStatements(db);
  let after = 0;
  for (;;) {
    const rows = s.unrecognizedAfter.all(after, BATCH);
    if (rows.length === 0) return summary;
    after = rows[rows.length - 1]!.seq;
    summary.read += rows.length;
    const changed: Rereading[] = [];
    for (const row of rows) {
      const reading = recognise({ package: row.package, title: row.title, text: row.text ?? "" });
      // contract §16: a payment found more than 30 days late stays unrecognised; counted, not written.
      if (reading.status === "payment" && row.occurred_at < now - MAX_AGE_MS) summary.too_old++;
      else if (reading.status !== "unrecognized" || reading.format !== row.format) changed.push({ seq: row.seq, reading });
    }
    if (changed.length === 0) continue;
    const counts = await apply(changed);
    summary.payments += counts.payments;
    summary.not_a_payment += counts.not_a_payment;
    summary.too_old += counts.too_old;
    summary.failed += counts.failed;
  }
}

/** What serve does at every start: the box's writer applies the readings. */
export function reparseThroughWriter(deps: { store: Store; writer: Writer; clock: Clock; recognise: Recognise }): Promise<ReparseSummary> {
  return reparseNotifications(deps.store.db, deps.recognise, deps.clock.now(), (readings) =>
    deps.writer.run("rereadNotifications", { readings, now: deps.clock.now() }),
  );
}
