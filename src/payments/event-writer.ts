// Who commits payment events. Tests write on the calling thread. `serve` hands them to a
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
  /** false while events cannot be stored (the writer thread is down): /healthz answers 503. */
  running(): boolean;
  /** Waits for the writes already handed over, then releases the thread (if any). */
  close(): Promise<void>;
}

/** Writes on the calling thread, through the store's commit queue. */
export const inThreadWriterOf = perStore((store: Store): EventWriter => {
  const queue = commitQueueOf(store);
  const stmts = ingestStatementsOf(store);
  return {
    write: (job) => queue.submit((tx) => storeEvent(tx, stmts, job)),
    running: () => true,
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

/** An error as it crosses threads: ApiErrors keep their code, anything else its message, SQLite code and stack. */
export type SentError =
  | { api: { code: ErrorCode; detail?: string; extra: Record<string, unknown>; headers: Record<string, string> } }
  | { message: string; code?: string; stack?: string };

export function sendError(error: unknown): SentError {
  if (error instanceof ApiError) return { api: { code: error.code, detail: error.detail, extra: error.extra, headers: error.headers } };
  if (!(error instanceof Error)) return { message: String(error) };
  const code = (error as { code?: unknown }).code;
  return { message: error.message, ...(typeof code === "string" ? { code } : {}), ...(error.stack ? { stack: error.stack } : {}) };
}

export function receiveError(sent: SentError): Error {
  if ("api" in sent) return new ApiError(sent.api.code, sent.api.detail, sent.api.extra, sent.api.headers);
  const error = new Error(`event writer: ${sent.code ? `${sent.code}: ` : ""}${sent.message}`);
  if (sent.code) Object.assign(error, { code: sent.code }); // SQLITE_BUSY becomes a 503 (isDatabaseBusy)
  if (sent.stack) error.stack = `${error.message}\n(writer thread) ${sent.stack}`;
  return error;
}

/** How long close() waits for the thread to finish the writes it holds (inside serve's 4 s grace). */
const CLOSE_WAIT_MS = 3000;

/**
 * The thread's code. `bun run build` lists it as a second entry point; the compiled binary keeps it
 * under its path relative to src/, and a relative specifier is looked up there. Run from source,
 * it is the file next to this one.
 */
const WRITER_THREAD_ENTRY = import.meta.url.startsWith("file:///$bunfs/")
  ? "./payments/writer-thread.ts"
  : new URL("./writer-thread.ts", import.meta.url).href;

export interface WriterThreadOptions {
  /** Told when the thread dies or a new one cannot open the database (serve logs it). */
  onFailure?: (error: Error, what: "stopped" | "restart failed") => void;
  /** First wait before a new thread after a failed one; doubles up to 30 s. */
  restartDelayMs?: number;
}

const MAX_RESTART_DELAY_MS = 30_000;

/**
 * Starts the writer thread on `dataDir` and resolves once it has opened the database. Each job is
 * posted at once, so the thread starts on the first event of a burst while this thread still parses
 * the others; the jobs that arrive while it commits go into its next commit (commit-queue.ts).
 * Should the thread die, the writes it held fail (their requests get a 500 and phones send them
 * again) and a new thread is started; until one has opened the database, writes fail at once,
 * /healthz answers 503, and new threads are tried with a growing delay.
 */
export async function startWriterThread(dataDir: string, opts: WriterThreadOptions = {}): Promise<EventWriter> {
  const writer = new ThreadWriter(dataDir, opts.onFailure ?? (() => {}), opts.restartDelayMs ?? 1000);
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
  private closing: Promise<void> | null = null;
  private onClosed = () => {};
  /** The thread that opened the database; only such a thread is replaced when it dies. */
  private opened: Worker | null = null;
  private restartDelay: number;

  constructor(
    private readonly dataDir: string,
    private readonly onFailure: (error: Error, what: "stopped" | "restart failed") => void,
    private readonly firstRestartDelayMs: number,
  ) {
    this.restartDelay = firstRestartDelayMs;
  }

  running(): boolean {
    return this.worker !== null && this.worker === this.opened && !this.closing;
  }

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
        if (worker === this.worker) this.onClosed();
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

  close(): Promise<void> {
    this.closing ??= this.shutDown();
    return this.closing;
  }

  private async shutDown(): Promise<void> {
    clearTimeout(this.restartTimer);
    const worker = this.worker;
    if (!worker) return;
    // "closed" comes after the answers to every job already posted (the thread handles messages in
    // order); a thread that dies meanwhile ends the wait too.
    const closed = new Promise<void>((resolve) => (this.onClosed = resolve));
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

  private restartTimer: ReturnType<typeof setTimeout> | undefined;

  /** The thread died (or was stopped): what it held fails, and a new one takes over unless closing. */
  private lost(worker: Worker, error: Error): void {
    if (worker !== this.worker || worker !== this.opened || this.closing) return;
    this.worker = null;
    this.failWaiting(error);
    this.onFailure(error, "stopped");
    this.restartDelay = this.firstRestartDelayMs;
    this.restart();
  }

  /** A new thread now; on failure another after a growing delay. Writes handed over meanwhile go to it, after its "open". */
  private restart(): void {
    if (this.closing) return;
    this.start().then(
      () => (this.restartDelay = this.firstRestartDelayMs),
      (e) => {
        this.onFailure(e as Error, "restart failed");
        if (this.closing) return;
        this.restartTimer = setTimeout(() => this.restart(), this.restartDelay);
        this.restartDelay = Math.min(this.restartDelay * 2, MAX_RESTART_DELAY_MS);
      },
    );
  }
}
