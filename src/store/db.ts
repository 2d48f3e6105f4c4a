// The one way to open the database: PRAGMAs, embedded migrations, drizzle on bun:sqlite.
// Nothing else in the code runs PRAGMAs or migration SQL.
import { Database } from "bun:sqlite";
import { chmodSync } from "node:fs";
import { join } from "node:path";
import { drizzle, type BunSQLiteDatabase } from "drizzle-orm/bun-sqlite";
import * as schema from "./schema";
import { ensureDataDir } from "./data-dir";
import { embeddedMigrations, type MigrationMeta } from "./migrations";
import { constantTimeEqual } from "../ids";
import { BoxKeyError, loadMasterKey, MASTER_KEY_CHECK_SETTING, MASTER_KEY_FILE, masterKeyCheck } from "./secret-box";
import { rehashLegacyOnce, useHashKey } from "./secret-hash";

export type Db = BunSQLiteDatabase<typeof schema>;

export interface Store {
  /** drizzle, for queries. */
  db: Db;
  /** The raw connection, for prepared statements on hot paths and for backups. */
  sqlite: Database;
  path: string;
  close(): void;
}

export const DB_FILE = "cuadra.db";
/** SQLite page cache per connection, KiB (PRAGMA cache_size); modest enough for a Raspberry Pi. */
export const CACHE_KIB = 64 * 1024;
/** WAL size, in pages, at which a commit checkpoints (PRAGMA wal_autocheckpoint). */
export const WAL_AUTOCHECKPOINT_PAGES = 4000;
const MIGRATIONS_TABLE = "__drizzle_migrations";

export { ensureDataDir, BoxKeyError };

/** The data dir was written by a newer Cuadra: an older one must not touch it (no downgrade). */
export class NewerDataError extends Error {
  constructor() {
    super("this data dir was written by a newer version of Cuadra; install that version (or newer) to use it");
  }
}

export interface OpenOptions {
  /** Apply only the first N migrations (tests of upgrades from an older schema). */
  migrateUpTo?: number;
  /** How long a write waits for another connection's lock before SQLITE_BUSY (default 5000 ms). */
  busyTimeoutMs?: number;
}

export const BUSY_TIMEOUT_MS = 5000;

export function openStore(dataDir: string, opts: OpenOptions = {}): Store {
  ensureDataDir(dataDir);
  const path = join(dataDir, DB_FILE);
  const sqlite = new Database(path, { create: true, strict: true });
  try {
    chmodSync(path, 0o600);
  } catch {
    // a read-only file system or foreign owner: opening still works, permissions are the admin's call
  }
  // Order matters (stack notes): busy_timeout first, or a concurrent CLI write fails at once.
  sqlite.run(`PRAGMA busy_timeout = ${Math.trunc(opts.busyTimeoutMs ?? BUSY_TIMEOUT_MS)}`);
  sqlite.run("PRAGMA journal_mode = WAL");
  // FULL: an acknowledged write survives power loss (contract §6, §13).
  sqlite.run("PRAGMA synchronous = FULL");
  const known = embeddedMigrations();
  let masterKey: Uint8Array<ArrayBuffer>;
  try {
    // A new key only for a database that holds nothing yet; never for one with a box's data in it.
    masterKey = loadMasterKey(dataDir, { create: !holdsData(sqlite) });
  } catch (e) {
    sqlite.close();
    throw e;
  }
  useHashKey(sqlite, masterKey);
  try {
    migrate(sqlite, known, known.slice(0, opts.migrateUpTo), masterKey, dataDir);
  } catch (e) {
    sqlite.close();
    throw e;
  }
  sqlite.run("PRAGMA foreign_keys = ON");
  // Page cache: at most 64 MiB (the default is 2 MiB), allocated only as pages are read. With a
  // million stored events every insert and lookup lands on a different leaf of the random-keyed
  // indexes; with the default cache even their interior pages were read from the OS over and over
  // (bench: 2.8 GB read for 20 000 events; 0.5 GB with this cache).
  sqlite.run(`PRAGMA cache_size = -${CACHE_KIB}`);
  // Statement and savepoint journals in memory. They hold the original of each page a statement,
  // or one event in the commit queue's per-event savepoint, changes until it ends: a few pages. On
  // disk they were a temp file that every event wrote and nobody read (bench: half of all bytes
  // written). Durability is the WAL's job and is unchanged. Set after the migrations, so that a
  // migration's CREATE INDEX on a big table still sorts through temp files, not memory.
  sqlite.run("PRAGMA temp_store = MEMORY");
  // Checkpoint when the WAL holds 4000 pages (16 MiB) instead of SQLite's 1000. Pages that every
  // commit touches (the tails of the events table and of its append-only indexes, page 1) are then
  // copied into the database once per 4000 pages instead of four times, and the database file is
  // fsynced a quarter as often: fewer writes (and less wear on an SD card). The price is a longer
  // pause when a checkpoint does run (bench, loaded database: +18 % events/s in process, p99 up).
  sqlite.run(`PRAGMA wal_autocheckpoint = ${WAL_AUTOCHECKPOINT_PAGES}`);
  return {
    db: drizzle(sqlite, { schema }),
    sqlite,
    path,
    close: () => sqlite.close(),
  };
}

/**
 * Applies embedded migrations, compatible with drizzle's own bookkeeping table. Unlike drizzle's
 * migrator it reads the applied list inside BEGIN IMMEDIATE, so a server and a CLI command that
 * start at once on a new data dir do not both try to create the tables.
 */
function migrate(sqlite: Database, known: MigrationMeta[], migrations: MigrationMeta[], masterKey: Uint8Array, dataDir: string): void {
  // foreign_keys is a no-op inside a transaction; switch it off outside (drizzle issue 5782).
  sqlite.run("PRAGMA foreign_keys = OFF");
  sqlite.run(`CREATE TABLE IF NOT EXISTS ${MIGRATIONS_TABLE} (id SERIAL PRIMARY KEY, hash text NOT NULL, created_at numeric)`);
  sqlite.run("BEGIN IMMEDIATE");
  try {
    const last = sqlite
      .query<{ created_at: number }, []>(`SELECT created_at FROM ${MIGRATIONS_TABLE} ORDER BY created_at DESC LIMIT 1`)
      .get();
    const lastApplied = last ? Number(last.created_at) : -1;
    if (known.length > 0 && lastApplied > known[known.length - 1]!.folderMillis) {
      throw new NewerDataError();
    }
    let applied = 0;
    for (const m of migrations) {
      if (m.folderMillis <= lastApplied) continue;
      for (const stmt of m.sql) if (stmt.trim()) sqlite.run(stmt);
      sqlite.run(`INSERT INTO ${MIGRATIONS_TABLE} (hash, created_at) VALUES (?, ?)`, [m.hash, m.folderMillis]);
      applied++;
    }
    // Only after a migration ran: the check reads every row of every table with a foreign key
    // (0.4 s with a million events here), and every CLI command opens the store.
    if (applied > 0) {
      const broken = sqlite.query("PRAGMA foreign_key_check").all();
      if (broken.length > 0) throw new Error(`migration left ${broken.length} rows with broken foreign keys`);
    }
    if (sqlite.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'box_settings'").get()) {
      // Before anything is hashed under it: the key must be this database's own.
      checkMasterKey(sqlite, masterKey, dataDir);
      // contract §20: key and code hashes under the master key (once; secret-hash.ts).
      rehashLegacyOnce(sqlite, masterKey);
    }
    sqlite.run("COMMIT");
  } catch (e) {
    sqlite.run("ROLLBACK");
    throw e;
  }
}

/** Whether the database holds a box's data: a shop, or the check value of a master key. */
function holdsData(sqlite: Database): boolean {
  const has = (table: string) => sqlite.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(table) !== null;
  if (has("tenants") && sqlite.query("SELECT 1 FROM tenants LIMIT 1").get() !== null) return true;
  return has("box_settings") && sqlite.query("SELECT 1 FROM box_settings WHERE key = ?").get(MASTER_KEY_CHECK_SETTING) !== null;
}

/**
 * The database records which master key is its own (box_settings, a check value that reveals nothing
 * of the key); a database opened with another key is refused before anything is read or hashed with
 * it. A database from before this check records the key it is opened with. Runs in the caller's
 * IMMEDIATE transaction.
 */
function checkMasterKey(sqlite: Database, masterKey: Uint8Array, dataDir: string): void {
  const expected = masterKeyCheck(masterKey);
  const row = sqlite.query<{ value: string }, [string]>("SELECT value FROM box_settings WHERE key = ?").get(MASTER_KEY_CHECK_SETTING);
  if (!row) {
    sqlite.run("INSERT INTO box_settings (key, value) VALUES (?, ?)", [MASTER_KEY_CHECK_SETTING, expected]);
    return;
  }
  if (!constantTimeEqual(row.value, expected)) throw new BoxKeyError("mismatch", join(dataDir, MASTER_KEY_FILE), join(dataDir, DB_FILE));
}

/**
 * Makes `store` a reader: any write on it fails at once ("attempt to write a readonly database").
 * The HTTP thread's connection is one, so that every write goes through the writer (contract §14)
 * and a write that slipped past it is a loud bug, not a lock wait on the event loop.
 */
export function readerOnly(store: Store): Store {
  store.sqlite.run("PRAGMA query_only = ON");
  return store;
}

/** The bun:sqlite connection under a Store, or under a drizzle database or transaction (all share it). */
export function rawClient(db: Db | Store): Database {
  if ("sqlite" in db && "path" in db) return (db as Store).sqlite;
  const d = db as unknown as { $client?: Database; session?: { client?: Database } };
  const client = d.$client ?? d.session?.client;
  if (!client) throw new Error("expected a Store, or a drizzle bun:sqlite database or transaction");
  return client;
}

/**
 * A value made once per connection (prepared statements): `perConnection(make)(db)`, where `db` is
 * a Store, its drizzle database or a transaction of it (all share one connection).
 */
export function perConnection<T>(make: (client: Database) => T): (db: Db | Store) => T {
  const made = new WeakMap<Database, T>();
  return (db) => {
    const client = rawClient(db);
    let value = made.get(client);
    if (value === undefined) {
      value = make(client);
      made.set(client, value);
    }
    return value;
  };
}
