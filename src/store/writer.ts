// The one writer (contract §14). Every write the server makes runs on one thread, the writer thread
// (writer-thread.ts), which owns the only writing connection and commits in groups
// (commit-queue.ts). The HTTP thread asks for a write by name with plain data (the names are in
// src/writes.ts) and gets the result once it is committed; it never runs a write and so never
// waits on SQLite's lock or an fsync. Tests use the same thread as `serve`: there is no other path.
import { DomainError, type ErrorCode } from "../errors";
import type { WriteArgs, WriteName, WriteResult } from "../writes";

export interface Writer {
  /** Runs the named write (src/writes.ts) in the next group commit; resolves after its COMMIT. */
  run<K extends WriteName>(name: K, args: WriteArgs<K>): Promise<WriteResult<K>>;
  /** false while writes cannot be made (the thread is down): /healthz answers 503. */
  running(): boolean;
  /** Resolves once every write handed over so far has settled (committed or failed). */
  idle(): Promise<void>;
  /** Waits for the writes already handed over, then releases the thread. */
  close(): Promise<void>;
}

// ---- the messages between the threads

/** HTTP thread → writer thread. */
export type ToWriter =
  | { type: "open"; dataDir: string; busyTimeoutMs?: number }
  | { type: "job"; id: number; name: WriteName; args: unknown }
  | { type: "close" };

/** Writer thread → HTTP thread: one "done" per commit, with the results of all its jobs. */
export type FromWriter =
  | { type: "ready" }
  | { type: "failed"; message: string }
  | { type: "done"; results: (WrittenJob | WriteFailure)[] }
  | { type: "closed" };

export type WrittenJob = { id: number; ok: true; value: unknown };
export type WriteFailure = { id: number; ok: false; error: SentError };

/** An error as it crosses threads: domain errors keep their code, anything else its message, SQLite code and stack. */
export type SentError =
  | { domain: { code: ErrorCode; detail?: string; extra: Record<string, unknown> } }
  | { message: string; code?: string; stack?: string };

export function sendError(error: unknown): SentError {
  if (error instanceof DomainError) return { domain: { code: error.code, detail: error.detail, extra: error.extra } };
  if (!(error instanceof Error)) return { message: String(error) };
  const code = (error as { code?: unknown }).code;
  return { message: error.message, ...(typeof code === "string" ? { code } : {}), ...(error.stack ? { stack: error.stack } : {}) };
}

export function receiveError(sent: SentError): Error {
  if ("domain" in sent) return new DomainError(sent.domain.code, sent.domain.detail, sent.domain.extra);
  const error = new Error(`writer: ${sent.code ? `${sent.code}: ` : ""}${sent.message}`);
  if (sent.code) Object.assign(error, { code: sent.code }); // SQLITE_BUSY becomes a 503 (isDatabaseBusy)
  if (sent.stack) error.stack = `${error.message}\n(writer thread) ${sent.stack}`;
  return error;
}

/** How long close() waits for the thread to finish the writes it holds (inside serve's 4 s grace). */
const CLOSE_WAIT_MS = 3000;

/**
 * The thread's code. `bun run build` lists it as a second entry point; the compiled binary keeps it
 * under its path relative to src/, and a relative specifier is looked up there. Run from source,
 * it is the file next to this one. (Bun.main, not import.meta.url, tells which: a --bytecode build
 * keeps the source path in import.meta.url.)
 */
const WRITER_THREAD_ENTRY = Bun.main.startsWith("/$bunfs/")
  ? "./store/writer-thread.ts"
  : new URL("./writer-thread.ts", import.meta.url).href;

export interface WriterOptions {
  /** Told when the thread dies or a new one cannot open the database (serve logs it). */
  onFailure?: (error: Error, what: "stopped" | "restart failed") => void;
  /** First wait before a new thread after a failed one; doubles up to 30 s. */
  restartDelayMs?: number;
  /** How long a write waits for another process's lock (a CLI command) before SQLITE_BUSY, a 503. */
  busyTimeoutMs?: number;
}

const MAX_RESTART_DELAY_MS = 30_000;

/**
 * Starts the writer thread on `dataDir` and resolves once it has opened the database. Each job is
 * posted at once, so the thread starts on the first write of a burst while this thread still parses
 * the others; the jobs that arrive while it commits go into its next commit. Should the thread die,
 * the writes it held fail (their requests get a 500 and clients send them again) and a new thread
 * is started; until one has opened the database, writes fail at once, /healthz answers 503, and
 * new threads are tried with a growing delay.
 */
export async function startWriter(dataDir: string, opts: WriterOptions = {}): Promise<Writer> {
  const writer = new ThreadWriter(dataDir, opts.onFailure ?? (() => {}), opts.restartDelayMs ?? 1000, opts.busyTimeoutMs);
  await writer.start();
  return writer;
}

interface Waiter {
  resolve: (value: any) => void;
  reject: (error: Error) => void;
}

class ThreadWriter implements Writer {
  private worker: Worker | null = null;
  private waiting = new Map<number, Waiter>();
  private nextId = 1;
  private closing: Promise<void> | null = null;
  private onClosed = () => {};
  /** The thread that opened the database; only such a thread is replaced when it dies. */
  private opened: Worker | null = null;
  private restartDelay: number;
  private restartTimer: ReturnType<typeof setTimeout> | undefined;
  private whenIdle: (() => void)[] = [];

  constructor(
    private readonly dataDir: string,
    private readonly onFailure: (error: Error, what: "stopped" | "restart failed") => void,
    private readonly firstRestartDelayMs: number,
    private readonly busyTimeoutMs: number | undefined,
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
        const error = new Error(`writer thread failed: ${e.message}`);
        reject(error);
        this.lost(worker, error);
      };
      worker.addEventListener("close", () => {
        const error = new Error("writer thread stopped");
        reject(error);
        if (worker === this.worker) this.onClosed();
        this.lost(worker, error);
      });
    });
    worker.postMessage({ type: "open", dataDir: this.dataDir, busyTimeoutMs: this.busyTimeoutMs } satisfies ToWriter);
    return ready.catch((error) => {
      if (this.worker === worker) this.worker = null;
      this.failWaiting(error);
      worker.terminate();
      throw error;
    });
  }

  run<K extends WriteName>(name: K, args: WriteArgs<K>): Promise<WriteResult<K>> {
    if (this.closing) return Promise.reject(new Error("writer closed"));
    const worker = this.worker;
    if (!worker) return Promise.reject(new Error("writer thread is not running"));
    const id = this.nextId++;
    return new Promise<WriteResult<K>>((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      worker.postMessage({ type: "job", id, name, args } satisfies ToWriter);
    });
  }

  idle(): Promise<void> {
    if (this.waiting.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.whenIdle.push(resolve));
  }

  private settledAll(): void {
    if (this.waiting.size > 0) return;
    const wake = this.whenIdle;
    this.whenIdle = [];
    for (const resolve of wake) resolve();
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
    this.failWaiting(new Error("writer closed"));
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
    this.settledAll();
  }

  private failWaiting(error: Error): void {
    for (const w of this.waiting.values()) w.reject(error);
    this.waiting.clear();
    this.settledAll();
  }

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
