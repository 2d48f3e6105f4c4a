// The writer thread (writer.ts): the only writing connection of the server, the group commit, and
// the writes of src/writes.ts run by name. The jobs that arrive while a commit runs go into the
// next one, and the results of each commit go back in one message, after COMMIT.
import { deferredStatusCount } from "../matching/status-writes";
import { writes, type WriteName } from "../writes";
import { CommitQueue } from "./commit-queue";
import { openStore, type Db, type Store } from "./db";
import type { FromWriter, ToWriter, WriteFailure, WrittenJob } from "./writer";
import { sendError } from "./writer";

declare const self: Worker;

let store: Store | null = null;
let queue: CommitQueue | null = null;
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
      writeDeferredLater();
    });
  }
  results.push(result);
}

// Status changes that a long re-evaluation deferred (matching/status-writes.ts) are written by the
// thread itself, one bounded write at a time, after the writes that are waiting for an answer.
let writingDeferred = false;
function writeDeferredLater(): void {
  const q = queue;
  if (writingDeferred || !q || deferredStatusCount() === 0) return;
  writingDeferred = true;
  setImmediate(() => {
    q.submit((tx) => writes.writeDeferredStatuses(tx, {}))
      .catch(() => {}) // kept deferred; tried again after the next commit
      .finally(() => {
        writingDeferred = false;
        if (queue === q) writeDeferredLater();
      });
  });
}

self.onmessage = async (e: MessageEvent<ToWriter>) => {
  const msg = e.data;
  if (msg.type === "open") {
    try {
      store = openStore(msg.dataDir, { busyTimeoutMs: msg.busyTimeoutMs });
      queue = new CommitQueue(store);
      reply({ type: "ready" });
    } catch (error) {
      reply({ type: "failed", message: (error as Error).message });
    }
  } else if (msg.type === "job") {
    const { id, name, args } = msg;
    const q = queue;
    const write = writes[name as WriteName] as ((tx: Db, args: unknown) => unknown) | undefined;
    if (!q || !write) {
      answer({ id, ok: false, error: { message: q ? `no write named ${name}` : "the database is not open" } });
      return;
    }
    const written = q
      .submit((tx) => write(tx, args))
      .then(
        (value) => answer({ id, ok: true, value }),
        (error) => answer({ id, ok: false, error: sendError(error) }),
      );
    inFlight.add(written);
    written.finally(() => inFlight.delete(written));
  } else if (msg.type === "close") {
    await Promise.all(inFlight);
    for (let left = deferredStatusCount(); queue && left > 0; left = deferredStatusCount()) {
      const written = await queue.submit((tx) => writes.writeDeferredStatuses(tx, {})).catch(() => 0);
      if (written === 0) break;
    }
    store?.close();
    store = null;
    queue = null;
    reply({ type: "closed" });
  }
};
