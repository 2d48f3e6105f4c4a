// The writer thread of `serve` (payments/event-writer.ts): its own connection to the database, the
// group commit, and storeEvent. It answers every batch of jobs with one message, after COMMIT.
import { openStore, type Store } from "../store/db";
import { commitQueueOf } from "./commit-queue";
import { sendError, type FromWriter, type ToWriter, type WriteFailure, type WrittenJob } from "./event-writer";
import { ingestStatementsOf, storeEvent } from "./store-event";

declare const self: Worker;

let store: Store | null = null;
const inFlight = new Set<Promise<unknown>>();
const reply = (msg: FromWriter) => self.postMessage(msg);

self.onmessage = async (e: MessageEvent<ToWriter>) => {
  const msg = e.data;
  if (msg.type === "open") {
    try {
      store = openStore(msg.dataDir);
      reply({ type: "ready" });
    } catch (error) {
      reply({ type: "failed", message: (error as Error).message });
    }
  } else if (msg.type === "jobs") {
    const s = store;
    if (!s) {
      reply({ type: "done", results: msg.jobs.map(({ id }) => ({ id, ok: false, error: { message: "the database is not open" } })) });
      return;
    }
    const queue = commitQueueOf(s);
    const stmts = ingestStatementsOf(s);
    const batch = Promise.all(
      msg.jobs.map(({ id, job }) =>
        queue.submit((tx) => storeEvent(tx, stmts, job)).then(
          (value): WrittenJob => ({ id, ok: true, value }),
          (error): WriteFailure => ({ id, ok: false, error: sendError(error) }),
        ),
      ),
    ).then((results) => reply({ type: "done", results }));
    inFlight.add(batch);
    batch.finally(() => inFlight.delete(batch));
  } else if (msg.type === "close") {
    await Promise.all(inFlight);
    store?.close();
    store = null;
    reply({ type: "closed" });
  }
};
