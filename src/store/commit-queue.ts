// Group commit. With synchronous=FULL every COMMIT waits for an fsync, and that wait, not HTTP or
// JSON, bounds how many events per second the box can acknowledge (stack notes). Writes submitted
// while the event loop is busy are run together in one IMMEDIATE transaction, each in its own
// savepoint (one failing write rolls back alone), and every promise settles only after COMMIT
// returned: an answer still means "on disk". It runs on the writer thread (writer-thread.ts), the
// only place that writes (contract §14).
import type { Statement } from "bun:sqlite";
import type { Db, Store } from "./db";

/**
 * A transaction takes no more writes once it has run this long: the rest go into the next one, so
 * that no COMMIT (and no answer) waits behind a long batch. A single write is never cut; long work
 * is split into bounded writes by its callers (the expiry sweep, the recent-events mover).
 */
export const TRANSACTION_BUDGET_MS = 50;

interface Pending {
  run: (tx: Db) => unknown;
  resolve: (value: any) => void;
  reject: (error: unknown) => void;
}

export class CommitQueue {
  private queue: Pending[] = [];
  private scheduled = false;
  // Prepared once: drizzle's nested transaction() would prepare SAVEPOINT and RELEASE on every call.
  private readonly savepoint: { begin: Statement; release: Statement; rollback: Statement };

  constructor(private readonly store: Store) {
    this.savepoint = {
      begin: store.sqlite.prepare("SAVEPOINT commit_queue_item"),
      release: store.sqlite.prepare("RELEASE commit_queue_item"),
      rollback: store.sqlite.prepare("ROLLBACK TO commit_queue_item"),
    };
  }

  /** Runs `run` (synchronous, inside the shared transaction) and resolves once it is committed. */
  submit<T>(run: (tx: Db) => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ run, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        // setImmediate: after the writes already received in this turn of the loop (requests, or the
        // writer thread's messages) have queued theirs.
        setImmediate(() => this.flush());
      }
    });
  }

  /** Puts writes back at the head of the queue, for the next transaction. */
  private requeue(items: Pending[]): void {
    this.queue = [...items, ...this.queue];
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
  }

  private flush(): void {
    let batch = this.queue;
    this.queue = [];
    this.scheduled = false;
    const outcomes: ({ ok: true; value: unknown } | { ok: false; error: unknown })[] = [];
    const started = performance.now();
    try {
      this.store.db.transaction(
        (tx) => {
          const sp = this.savepoint;
          for (let i = 0; i < batch.length; i++) {
            if (i > 0 && performance.now() - started > TRANSACTION_BUDGET_MS) {
              // Over budget: what is left goes first into the next transaction.
              this.requeue(batch.slice(i));
              batch = batch.slice(0, i);
              break;
            }
            const item = batch[i]!;
            sp.begin.run();
            try {
              const value = item.run(tx as unknown as Db);
              sp.release.run();
              outcomes.push({ ok: true, value });
            } catch (error) {
              sp.rollback.run(); // undoes this item's writes only…
              sp.release.run(); // …and takes its savepoint off the stack
              outcomes.push({ ok: false, error });
            }
          }
        },
        { behavior: "immediate" },
      );
    } catch (error) {
      // BEGIN or COMMIT failed: nothing of this batch is stored.
      for (const item of batch) item.reject(error);
      return;
    }
    batch.forEach((item, i) => {
      const o = outcomes[i]!;
      if (o.ok) item.resolve(o.value);
      else item.reject(o.error);
    });
  }
}

