// The one way to open the database: PRAGMAs, embedded migrations, upgrades from older schemas.
import { afterEach, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { readMigrationFiles } from "drizzle-orm/migrator";
import { ManualClock } from "../src/clock";
import { DB_FILE, openStore } from "../src/store/db";
import { EMBEDDED, embeddedMigrations, journalTags } from "../src/store/migrations";
import { findCodeByLetters } from "../src/device/codes";
import { sha256Hex } from "../src/ids";
import { createTenant, findActiveKey, listTenants } from "../src/tenants/service";

const MIGRATIONS_DIR = resolve(import.meta.dir, "../migrations");
const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), "cuadra-store-"));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const tables = (sqlite: Database) =>
  sqlite
    .query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
    .all()
    .map((r) => r.name);

describe("embedded migrations", () => {
  test("EMBEDDED, the journal and the .sql files on disk are the same set", () => {
    const onDisk = readdirSync(MIGRATIONS_DIR)
      .filter((f) => f.endsWith(".sql"))
      .map((f) => f.slice(0, -4))
      .sort();
    expect(Object.keys(EMBEDDED).sort()).toEqual(onDisk);
    expect([...journalTags()].sort()).toEqual(onDisk);
  });

  test("each embedded text is byte for byte its file", () => {
    for (const [tag, text] of Object.entries(EMBEDDED)) {
      expect(text).toBe(readFileSync(join(MIGRATIONS_DIR, `${tag}.sql`), "utf8"));
    }
  });

  test("the records equal what drizzle's own migrator reads from disk (same hashes, order, times)", () => {
    const fromDisk = readMigrationFiles({ migrationsFolder: MIGRATIONS_DIR });
    const embedded = embeddedMigrations();
    expect(embedded.map((m) => ({ sql: m.sql, bps: m.bps, folderMillis: m.folderMillis, hash: m.hash }))).toEqual(
      fromDisk.map((m) => ({ sql: m.sql, bps: m.bps, folderMillis: m.folderMillis, hash: m.hash })),
    );
  });

  test("journal times strictly increase (the migrator skips one merged out of order)", () => {
    const times = embeddedMigrations().map((m) => m.folderMillis);
    for (let i = 1; i < times.length; i++) expect(times[i]!).toBeGreaterThan(times[i - 1]!);
  });
});

describe("openStore", () => {
  test("sets WAL, synchronous=FULL, busy_timeout and foreign keys", () => {
    const store = openStore(tempDir());
    const pragma = (name: string) => Object.values(store.sqlite.query(`PRAGMA ${name}`).get() as object)[0];
    expect(pragma("journal_mode")).toBe("wal");
    expect(pragma("synchronous")).toBe(2); // FULL
    expect(pragma("busy_timeout")).toBe(5000);
    expect(pragma("foreign_keys")).toBe(1);
    store.close();
  });

  test("a page cache of at most 64 MiB, statement journals in memory, checkpoints every 4000 WAL pages", () => {
    const store = openStore(tempDir());
    const pragma = (name: string) => Object.values(store.sqlite.query(`PRAGMA ${name}`).get() as object)[0];
    expect(pragma("cache_size")).toBe(-64 * 1024); // KiB
    expect(pragma("temp_store")).toBe(2); // MEMORY
    expect(pragma("wal_autocheckpoint")).toBe(4000);
    store.close();
  });

  test("creates the data dir private and the database file 0600", () => {
    const dir = join(tempDir(), "nested", "data");
    const store = openStore(dir);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, DB_FILE)).mode & 0o777).toBe(0o600);
    store.close();
  });

  test("foreign keys are enforced", () => {
    const store = openStore(tempDir());
    expect(() =>
      store.sqlite.run(
        "INSERT INTO api_keys (id, tenant_id, environment, key_hash, prefix, last4, created_at) VALUES ('key_x', 'ten_missing', 'live', 'h', 'p', 'l', 1)",
      ),
    ).toThrow(/FOREIGN KEY/);
    store.close();
  });

  test("a new data dir gets every migration once; opening again applies nothing twice", () => {
    const dir = tempDir();
    openStore(dir).close();
    const store = openStore(dir);
    const applied = store.sqlite.query<{ hash: string }, []>("SELECT hash FROM __drizzle_migrations ORDER BY created_at").all();
    expect(applied.map((r) => r.hash)).toEqual(embeddedMigrations().map((m) => m.hash));
    expect(tables(store.sqlite)).toEqual(
      ["__drizzle_migrations", "activation_codes", "api_keys", "box_settings", "console_links", "console_sessions", "devices", "events", "feed_acks", "matches", "news", "notifications", "orders", "tenants", "webhook_endpoints", "webhook_messages"].sort(),
    );
    store.close();
  });

  test("a data dir made at the first migration is upgraded with its data intact", () => {
    const dir = tempDir();
    const clock = new ManualClock();
    const old = openStore(dir, { migrateUpTo: 1 });
    expect(tables(old.sqlite)).not.toContain("devices");
    expect(tables(old.sqlite)).not.toContain("orders");
    const t = createTenant(old.db, clock, "Bodega de antes");
    old.close();

    const store = openStore(dir);
    expect(tables(store.sqlite)).toContain("devices");
    expect(tables(store.sqlite)).toContain("orders");
    expect(tables(store.sqlite)).toContain("matches");
    expect(listTenants(store.db)).toEqual([{ tenant_id: t.tenant_id, name: "Bodega de antes", created_at: clock.now() }]);
    const keys = store.sqlite.query<{ n: number }, [string]>("SELECT count(*) AS n FROM api_keys WHERE tenant_id = ?").get(t.tenant_id);
    expect(keys!.n).toBe(2);
    store.close();
  });

  test("keys and codes stored as plain SHA-256 before 0009 are rehashed under the master key once, and still work (contract §20)", () => {
    const dir = tempDir();
    const clock = new ManualClock();
    const old = openStore(dir, { migrateUpTo: embeddedMigrations().findIndex((m) => m.tag.startsWith("0009")) });
    // As the previous version wrote them: the SHA-256 hex of the key and of the code's letters.
    const ten = createTenant(old.db, clock, "Bodega de antes");
    old.sqlite.run("UPDATE api_keys SET key_hash = ? WHERE environment = 'live'", [sha256Hex(ten.keys.live)]);
    old.sqlite.run("UPDATE api_keys SET key_hash = ? WHERE environment = 'test'", [sha256Hex(ten.keys.test)]);
    old.sqlite.run(
      "INSERT INTO activation_codes (id, code_hash, tenant_id, environment, created_at, expires_at) VALUES ('acd_old', ?, ?, 'live', 1, ?)",
      [sha256Hex("WDJBMJHTKXQP"), ten.tenant_id, clock.now() + 60_000],
    );
    old.close();

    const store = openStore(dir);
    expect(findActiveKey(store.db, ten.keys.live)).toMatchObject({ tenantId: ten.tenant_id, environment: "live" });
    expect(findCodeByLetters(store.db, "WDJBMJHTKXQP")).toMatchObject({ id: "acd_old" });
    const stored = store.sqlite.query<{ h: string }, []>("SELECT key_hash AS h FROM api_keys UNION ALL SELECT code_hash FROM activation_codes").all();
    expect(stored.map((r) => r.h)).not.toContain(sha256Hex(ten.keys.live));
    expect(stored.map((r) => r.h)).not.toContain(sha256Hex("WDJBMJHTKXQP"));
    store.close();
    // A second open rehashes nothing again: the key still works.
    const again = openStore(dir);
    expect(findActiveKey(again.db, ten.keys.live)).not.toBeNull();
    expect(findActiveKey(again.db, ten.keys.test)).not.toBeNull();
    again.close();
  });

  test("a data dir with events and orders from before 0004 keeps them; only pending orders and referenced events are in the partial indexes", () => {
    const dir = tempDir();
    const clock = new ManualClock();
    const old = openStore(dir, { migrateUpTo: embeddedMigrations().findIndex((m) => m.tag.startsWith("0004")) });
    const ten = createTenant(old.db, clock, "Bodega de antes").tenant_id;
    const event = old.sqlite.prepare(
      `INSERT INTO events (event_id, device_id, tenant_id, environment, kind, source, amount, currency, reference, occurred_at, received_at,
         body_hash, response_status, response_body, match_status) VALUES (?, NULL, ?, 'live', 'payment.received', 'bcp', 2500, 'PEN', ?, 1, 1, 'h', 201, '{}', 'unmatched')`,
    );
    event.run("e-1", ten, "OP-1");
    event.run("e-2", ten, null);
    const order = old.sqlite.prepare(
      `INSERT INTO orders (tenant_id, environment, id, amount, expected_amount, currency, status, created_at, expires_at, updated_at)
       VALUES (?, 'live', ?, 2500, 2500, 'PEN', ?, 1, 2, 1)`,
    );
    order.run(ten, "A-1", "pending");
    order.run(ten, "A-2", "cancelled");
    event.finalize();
    order.finalize();
    old.close();

    const store = openStore(dir);
    const count = (sqlText: string) => store.sqlite.query<{ n: number }, []>(sqlText).get()!.n;
    expect(count("SELECT count(*) AS n FROM events")).toBe(2);
    expect(count("SELECT count(*) AS n FROM orders")).toBe(2);
    // INDEXED BY makes SQLite read the partial index itself (and fail if it could not).
    // Events stored before 0008 are in the old partition (recent = 0).
    expect(count("SELECT count(*) AS n FROM events INDEXED BY events_dup_reference_idx WHERE reference IS NOT NULL AND recent = 0")).toBe(1);
    expect(count("SELECT count(*) AS n FROM events WHERE recent = 1")).toBe(0);
    expect(count("SELECT count(*) AS n FROM orders INDEXED BY orders_pending_candidates_idx WHERE status = 'pending' AND tenant_id > ''")).toBe(1);
    expect(count("SELECT count(*) AS n FROM orders INDEXED BY orders_pending_expiry_idx WHERE status = 'pending' AND expires_at > 0")).toBe(1);
    const names = store.sqlite
      .query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'index' AND name IN ('events_tenant_event_idx', 'events_dup_amount_idx', 'events_waiting_amount_idx', 'orders_candidates_idx', 'orders_expiry_idx', 'orders_pending_amount_idx')")
      .all();
    expect(names).toEqual([]);
    store.close();
  });

  test("a data dir written by a newer version is refused with a message that says what to do", () => {
    const dir = tempDir();
    openStore(dir).close();
    const raw = new Database(join(dir, DB_FILE));
    raw.run("INSERT INTO __drizzle_migrations (hash, created_at) VALUES ('future', 99999999999999)");
    raw.close();
    expect(() => openStore(dir)).toThrow(/newer version of Cuadra/);
  });

  test("two connections opening a new data dir at once both succeed (one migrates)", async () => {
    const dir = tempDir();
    const script = `import { openStore } from ${JSON.stringify(resolve(import.meta.dir, "../src/store/db.ts"))}; openStore(process.argv.at(-1)!).close();`;
    const procs = Array.from({ length: 4 }, () => Bun.spawn(["bun", "-e", script, dir], { stderr: "pipe" }));
    const codes = await Promise.all(procs.map((p) => p.exited));
    const errors = await Promise.all(procs.map((p) => new Response(p.stderr).text()));
    expect({ codes, errors: errors.filter((e) => e.trim()) }).toEqual({ codes: [0, 0, 0, 0], errors: [] });
    const store = openStore(dir);
    const n = store.sqlite.query<{ n: number }, []>("SELECT count(*) AS n FROM __drizzle_migrations").get()!.n;
    expect(n).toBe(embeddedMigrations().length);
    store.close();
  });
});
