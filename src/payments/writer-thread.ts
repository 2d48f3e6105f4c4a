// The writer thread of `serve` (payments/event-writer.ts): its own connection to the database, the
// group commit, and storeEvent. The jobs that arrive while a commit runs go into the next one, and
// the results of each commit go back in one message, after COMMIT.
import { openStore, type Store } from "../store/db";
import { commitQueueOf } from "./commit-queue";
import { sendError, type FromWriter, type ToWriter, type WriteFailure, type WrittenJob } from "./event-writer";
import { ingestStatementsOf, storeEvent } from "./store-event";

declare const self: Worker;

let store: Store | null = null;
const inFlight = new Set<Promise<unknown>>();
const reply = (msg: FromWriter) => self.postMessage(msg);

// The jobs of one commit settle together (commit-queue.ts), so their results travel in one message.
let results: (WrittenJob | WriteFailure)[] = [];
function answer(result: WrittenJob | WriteFailure): void {
  if (results.length === 0) {
    queueMicrotask(() => {
      const done = results;
      results = [];
      reply({ type: "done", results: done });
    });
  }
  results.push(result);
}

self.onmessage = async (e: MessageEvent<ToWriter>) => {
  const msg = e.data;
  if (msg.type === "open") {
    try {
      store = openStore(msg.dataDir);
      reply({ type: "ready" });
    } catch (error) {
      reply({ type: "failed", message: (error as Error).message });
    }
  } else if (msg.type === "job") {
    const { id, job } = msg;
    const s = store;
    if (!s) {
      answer({ id, ok: false, error: { message: "the database is not open" } });
      return;
    }
    const written = commitQueueOf(s)
      .submit((tx) => storeEvent(tx, ingestStatementsOf(s), job))
      .then(
        (value) => answer({ id, ok: true, value }),
        (error) => answer({ id, ok: false, error: sendError(error) }),
      );
    inFlight.add(written);
    written.finally(() => inFlight.delete(written));
  } else if (msg.type === "close") {
    await Promise.all(inFlight);
    store?.close();
    store = null;
    reply({ type: "closed" });
  }
};
