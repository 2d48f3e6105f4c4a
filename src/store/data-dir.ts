// The data dir (contract §1): the database and the key material beside it, readable by its owner only.
import { Database } from "bun:sqlite";
import { mkdirSync } from "node:fs";
import { join } from "node:path";

export function ensureDataDir(dataDir: string): void {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
}

export const SERVE_LOCK_FILE = "serve.lock";

/**
 * Holds the data dir for this `serve` until release() or the process ends, even by SIGKILL: an
 * exclusive lock on a small SQLite file beside the database (the OS drops it with the process).
 * A second server on the same data dir would be a second writer (contract §14); it is refused.
 * Returns null when another process holds it.
 */
export function lockDataDir(dataDir: string): { release(): void } | null {
  ensureDataDir(dataDir);
  const lock = new Database(join(dataDir, SERVE_LOCK_FILE), { create: true });
  try {
    lock.run("PRAGMA busy_timeout = 0");
    lock.run("BEGIN EXCLUSIVE");
  } catch (e) {
    lock.close();
    if ((e as { code?: string }).code?.startsWith("SQLITE_BUSY")) return null;
    throw e;
  }
  return { release: () => lock.close() };
}
