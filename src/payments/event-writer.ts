// Who commits payment events. Tests and the CLI write on the calling thread. `serve` hands them to a
// writer thread (writer-thread.ts) with its own connection: there the replay lookup, the duplicate
// and matching queries, the fsync of every commit and the WAL checkpoints no longer stop the HTTP
// thread, which keeps parsing and verifying requests on the other core (bench/README.md). Both run
// the same storeEvent in the same group commit, and both settle a write only after its COMMIT.
import { ApiError, type ErrorCode } from "../http/errors";
import { perStore, type Store } from "../store/db";
import { commitQueueOf } from "./commit-queue";
import { ingestStatementsOf, storeEvent, type StoreJob, type StoreOutcome } from "./store-event";

export interface EventWriter {
  /** Stores the event; resolves once it is committed. */
  write(job: StoreJob): Promise<StoreOutcome>;
  /** Waits for the writes already handed over, then releases the thread (if any). */
  close(): Promise<void>;
}

/** Writes on the calling thread, through the store's commit queue. */
export const inThreadWriterOf = perStore((store: Store): EventWriter => {
  const queue = commitQueueOf(store);
  const stmts = ingestStatementsOf(store);
  return {
    write: (job) => queue.submit((tx) => storeEvent(tx, stmts, job)),
    close: async () => {},
  };
});

// ---- the writer thread's messages

/** HTTP thread → writer thread. */
export type ToWriter = { type: "open"; dataDir: string } | { type: "job"; id: number; job: StoreJob } | { type: "close" };

/** Writer thread → HTTP thread: one "done" per commit, with the results of all its jobs. */
export type FromWriter =
  | { type: "ready" }
  | { type: "failed"; message: string }
  | { type: "done"; results: (WrittenJob | WriteFailure)[] }
  | { type: "closed" };

export type WrittenJob = { id: number; ok: true; value: StoreOutcome };
export type WriteFailure = { id: number; ok: false; error: SentError };

/** An error as it crosses threads: ApiErrors keep their code, anything else its message. */
export type SentError = { api: { code: ErrorCode; detail?: string; extra: Record<string, unknown>; headers: Record<string, string> } } | { message: string };

export function sendError(error: unknown): SentError {
  if (error instanceof ApiError) return { api: { code: error.code, detail: error.detail, extra: error.extra, headers: error.headers } };
  return { message: error instanceof Error ? error.message : String(error) };
}

export function receiveError(sent: SentError): Error {
  if ("api" in sent) return new ApiError(sent.api.code, sent.api.detail, sent.api.extra, sent.api.headers);
  return new Error(`event writer: ${sent.message}`);
}

/** How long close() waits for the thread to finish the writes it holds. */
const CLOSE_WAIT_MS = 5000;

/**
 * The thread's code. `bun run build` lists it as a second entry point; the compiled binary keeps it
 * under its path relative to src/, and a relative specifier is looked up there. Run from source,
 * it is the file next to this one.
 */
const WRITER_THREAD_ENTRY = import.meta.url.startsWith("file:///$bunfs/")
  ? "./payments/writer-thread.ts"
  : new URL("./writer-thread.ts", import.meta.url).href;

/**
 * Starts the writer thread on `dataDir` and resolves once it has opened the database. Each job is
 * posted at once, so the thread starts on the first event of a burst while this thread still parses
 * the others; the jobs that arrive while it commits go into its next commit (commit-queue.ts).
 * Should the thread die, the writes it held fail (their requests get a 500 and phones
 * send them again), `onFailure` hears of it, and a new thread takes the next writes.
 */
export async function startWriterThread(dataDir: string, onFailure: (error: Error) => void = () => {}): Promise<EventWriter> {
  const writer = new ThreadWriter(dataDir, onFailure);
  await writer.start();
  return writer;
}

interface Waiter {
  resolve: (value: StoreOutcome) => void;
  reject: (error: Error) => void;
}

class ThreadWriter implements EventWriter {
  private worker: Worker | null = null;
  private waiting = new Map<number, Waiter>();
  private nextId = 1;
  private closing = false;
  private onClosed = () => {};
  /** The thread that opened the database; only such a thread is replaced when it dies. */
  private opened: Worker | null = null;

  constructor(
    private readonly dataDir: string,
    private readonly onFailure: (error: Error) => void,
  ) {}

  start(): Promise<void> {
    const worker = new Worker(WRITER_THREAD_ENTRY);
    this.worker = worker;
    const ready = new Promise<void>((resolve, reject) => {
      worker.onmessage = (e: MessageEvent<FromWriter>) => {
        const msg = e.data;
        if (msg.type === "ready") {
          this.opened = worker;
          resolve();
        } else if (msg.type === "failed") reject(new Error(msg.message));
        else if (msg.type === "done") this.settle(msg.results);
        else if (msg.type === "closed") this.onClosed();
      };
      worker.onerror = (e) => {
        const error = new Error(`event writer thread failed: ${e.message}`);
        reject(error);
        this.lost(worker, error);
      };
      worker.addEventListener("close", () => {
        const error = new Error("event writer thread stopped");
        reject(error);
        this.lost(worker, error);
      });
    });
    worker.postMessage({ type: "open", dataDir: this.dataDir } satisfies ToWriter);
    return ready.catch((error) => {
      if (this.worker === worker) this.worker = null;
      this.failWaiting(error);
      worker.terminate();
      throw error;
    });
  }

  write(job: StoreJob): Promise<StoreOutcome> {
    if (this.closing) return Promise.reject(new Error("event writer closed"));
    const worker = this.worker;
    if (!worker) return Promise.reject(new Error("event writer thread is not running"));
    const id = this.nextId++;
    return new Promise<StoreOutcome>((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      worker.postMessage({ type: "job", id, job } satisfies ToWriter);
    });
  }

  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    const worker = this.worker;
    if (!worker) return;
    const closed = new Promise<void>((resolve) => (this.onClosed = resolve));
    // Jobs already posted are answered before "closed": the thread handles messages in order.
    worker.postMessage({ type: "close" } satisfies ToWriter);
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([closed, new Promise<void>((resolve) => (timer = setTimeout(resolve, CLOSE_WAIT_MS)))]);
    clearTimeout(timer);
    this.failWaiting(new Error("event writer closed"));
    worker.terminate();
  }

  private settle(results: (WrittenJob | WriteFailure)[]): void {
    for (const r of results) {
      const w = this.waiting.get(r.id);
      if (!w) continue;
      this.waiting.delete(r.id);
      if (r.ok) w.resolve(r.value);
      else w.reject(receiveError(r.error));
    }
  }

  private failWaiting(error: Error): void {
    for (const w of this.waiting.values()) w.reject(error);
    this.waiting.clear();
  }

  /** The thread died (or was stopped): what it held fails, and a new one takes over unless closing. */
  private lost(worker: Worker, error: Error): void {
    if (worker !== this.worker || worker !== this.opened || this.closing) return;
    this.worker = null;
    this.failWaiting(error);
    this.onFailure(error);
    // Writes handed over meanwhile go to the new thread, after its "open".
    this.start().catch((e) => this.onFailure(e as Error));
  }
}
