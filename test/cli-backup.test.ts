// Backups that restore a whole box (issue 15): `backup --to FILE` writes one SQLite file holding the
// database, master.key and tls/; `restore --from FILE` puts them back, checked, into a folder no
// server holds. openStore refuses a master.key that is not its database's own (and never makes a new
// one for a database with data), and serve refuses a damaged database.
import { afterAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, closeSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BACKUP_FORMAT, backupCommands } from "../src/cli/backup-commands";
import { commands } from "../src/cli/commands";
import { runCli, type CommandContext } from "../src/cli/framework";
import { translator } from "../src/i18n";
import { recognise } from "../src/notifications/recogniser";
import { checkDatabase } from "../src/cli/integrity";
import { ManualClock } from "../src/clock";
import { fingerprintForPeople, fingerprintOfPem } from "../src/pairing/uri";
import { lockDataDir } from "../src/store/data-dir";
import { DB_FILE, openStore } from "../src/store/db";
import { BoxKeyError, createSecretBox, loadMasterKey, MASTER_KEY_CHECK_SETTING, masterKeyCheck } from "../src/store/secret-box";
import { findActiveKey } from "../src/tenants/service";
import { activatePhone, paymentEvent, postEvent } from "./support/device";
import { makeTestApp } from "./support/harness";
import { runCuadra } from "./support/cli";

const clock = new ManualClock();
const made: string[] = [];
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});
/** A new temporary folder; `missing` gives a path inside one that does not exist yet. */
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), "cuadra-backup-"));
  made.push(d);
  return d;
};
const missing = () => join(tempDir(), "box");

const cuadra = (dataDir: string, argv: string[], env: Record<string, string> = {}) => runCuadra(dataDir, argv, { clock, env });

/** What `fn` throws (undefined if nothing). */
function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (e) {
    return e;
  }
  return undefined;
}

const mode = (path: string) => statSync(path).mode & 0o777;
const tables = (db: Database) =>
  db
    .query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
    .all()
    .map((r) => r.name);

/** Overwrites `pages` whole pages in the middle of a database file with garbage. */
function damage(file: string, pages = 3): void {
  const size = statSync(file).size;
  const fd = openSync(file, "r+");
  writeSync(fd, Buffer.alloc(pages * 4096, 0x5a), 0, pages * 4096, Math.floor(size / 2 / 4096) * 4096);
  closeSync(fd);
}

/**
 * A box with a shop, a phone, a payment and an order, made through the app (writer thread and
 * read-only connection still open while the test runs `backup`: as under a running serve).
 */
async function boxWithData() {
  const t = await makeTestApp({ clock });
  const shop = t.tenant("Bodega Rosa");
  const phone = await activatePhone(t, { tenantId: shop.tenant_id });
  const event = paymentEvent(t);
  expect((await postEvent(t, phone, event)).status).toBe(201);
  await t.writer.run("syncOrders", { scope: { tenantId: shop.tenant_id, environment: "live" }, orders: [{ id: "A-1", amount: 3000, currency: "PEN" }], now: clock.now() });
  await t.writer.idle();
  // init would make the certificate; the harness does not.
  const { ensureSelfSignedCert } = await import("../src/pairing/certificate");
  const tls = await ensureSelfSignedCert(t.dataDir);
  return { t, shop, phone, event, tls };
}

describe("backup --to FILE", () => {
  test("one file, readable by its owner only, that is a SQLite database with every table, master.key and tls/", async () => {
    const { t, tls } = await boxWithData();
    const folder = tempDir();
    const file = join(folder, "caja.cuadra");
    const umask = process.umask(0); // whatever the umask, the file is its owner's only
    let r;
    try {
      r = await cuadra(t.dataDir, ["backup", "--to", file, "--json"]);
    } finally {
      process.umask(umask);
    }
    expect(r.code).toBe(0);
    expect(r.json).toEqual({ file, bytes: statSync(file).size });
    expect(mode(file)).toBe(0o600);
    expect(readdirSync(folder)).toEqual(["caja.cuadra"]); // no temporary file or folder left beside it

    const copy = new Database(file, { readonly: true });
    expect(copy.query("PRAGMA integrity_check").get()).toEqual({ integrity_check: "ok" });
    expect(copy.query("PRAGMA journal_mode").get()).toEqual({ journal_mode: "delete" }); // no -wal needed beside it
    expect(tables(copy)).toEqual([...tables(t.store.sqlite), "backup_files", "backup_info"].sort());
    for (const table of ["tenants", "devices", "events", "orders", "api_keys", "box_settings"]) {
      const n = (db: Database) => db.query(`SELECT count(*) AS n FROM ${table}`).get();
      expect({ table, n: n(copy) }).toEqual({ table, n: n(t.store.sqlite) });
    }
    const files = copy.query<{ name: string; mode: number; content: Uint8Array }, []>("SELECT name, mode, content FROM backup_files ORDER BY name").all();
    expect(files.map((f) => [f.name, f.mode])).toEqual([
      ["master.key", 0o600],
      ["tls/cert.pem", 0o644],
      ["tls/key.pem", 0o600],
    ]);
    for (const f of files) expect(Buffer.from(f.content).equals(readFileSync(join(t.dataDir, f.name)))).toBe(true);
    const info = Object.fromEntries(copy.query<{ key: string; value: string }, []>("SELECT key, value FROM backup_info").all().map((r) => [r.key, r.value]));
    expect(info).toMatchObject({ format: String(BACKUP_FORMAT), made_at: String(clock.now()), data_dir: t.dataDir, tls_fingerprint: tls.fingerprint });
    copy.close();
    await t.close();
  });

  test("the copy is one snapshot: a write still open on another connection neither blocks it nor is in it", async () => {
    const { t } = await boxWithData();
    const store = openStore(t.dataDir); // opened first, as the command opens it before copying
    const other = new Database(join(t.dataDir, DB_FILE));
    other.run("BEGIN IMMEDIATE");
    other.run("INSERT INTO tenants (id, name, created_at, updated_at) SELECT 'ten_uncommitted', 'A medias', created_at, updated_at FROM tenants LIMIT 1");
    const file = join(tempDir(), "b.cuadra");
    const backup = backupCommands.find((c) => c.path[0] === "backup")!;
    const ctx = { dataDir: t.dataDir, json: true, clock, lang: "en", t: translator("en"), argv: [], recognise, store: () => store, out() {}, err() {} } as CommandContext;
    const started = performance.now();
    const r = await backup.run(ctx, { to: file }, []);
    expect(performance.now() - started).toBeLessThan(2000); // not the 5 s of a lock wait
    other.run("COMMIT");
    other.close();
    store.close();
    expect(r).toEqual({ file, bytes: statSync(file).size });
    const copy = new Database(file, { readonly: true });
    expect(copy.query("SELECT name FROM tenants ORDER BY name").all()).toEqual([{ name: "Bodega Rosa" }]);
    copy.close();
    await t.close();
  });

  test("refuses a file that exists and a folder that does not (exit 1, saying why); writes nothing", async () => {
    const { t } = await boxWithData();
    const folder = tempDir();
    const file = join(folder, "ya-existe.cuadra");
    writeFileSync(file, "mine");
    const exists = await cuadra(t.dataDir, ["backup", "--to", file]);
    expect(exists.code).toBe(1);
    expect(exists.stderr).toContain(`the file ${file} already exists`);
    expect(readFileSync(file, "utf8")).toBe("mine");

    const nowhere = join(folder, "no-such-folder", "b.cuadra");
    const noFolder = await cuadra(t.dataDir, ["backup", "--to", nowhere]);
    expect(noFolder.code).toBe(1);
    expect(noFolder.stderr).toContain(`the folder ${join(folder, "no-such-folder")} does not exist; create it or pick another`);
    expect(readdirSync(folder)).toEqual(["ya-existe.cuadra"]);

    // In Spanish too, for the person at the shop.
    const es = await cuadra(t.dataDir, ["backup", "--to", file], { LANG: "es_PE.UTF-8" });
    expect(es.stderr).toContain("ya existe");
    await t.close();
  });

  test("refuses a data folder with no database, and makes none", async () => {
    const dir = missing();
    const r = await cuadra(dir, ["backup", "--to", join(tempDir(), "b.cuadra")]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("no Cuadra data folder");
    expect(existsSync(dir)).toBe(false);
  });

  test("says what the file holds, that only its owner can read it, to keep it off the box, and how to restore it", async () => {
    const { t } = await boxWithData();
    const file = join(tempDir(), "b.cuadra");
    const r = await cuadra(t.dataDir, ["backup", "--to", file]);
    expect(r.stdout).toContain(`Backup written: ${file}`);
    expect(r.stdout).toContain("master.key");
    expect(r.stdout).toContain("tls/");
    expect(r.stdout).toContain("Only you (the file's owner) can read it");
    expect(r.stdout).toContain("somewhere safe off this box");
    expect(r.stdout).toContain(`To restore it: cuadra restore --from ${file} --data-dir ${t.dataDir}`);
    // A path a shell would split is quoted, so the line pastes as printed.
    const spaced = join(tempDir(), "copias de la caja");
    mkdirSync(spaced);
    const withSpace = await cuadra(t.dataDir, ["backup", "--to", join(spaced, "b 1.cuadra")]);
    expect(withSpace.stdout).toContain(`cuadra restore --from '${join(spaced, "b 1.cuadra")}' --data-dir ${t.dataDir}`);
    const es = await cuadra(t.dataDir, ["backup", "--to", join(tempDir(), "b.cuadra")], { LANG: "es_PE.UTF-8" });
    expect(es.stdout).toContain("Solo tú");
    await t.close();
  });
});

describe("restore --from FILE", () => {
  test("into a new folder: the database, master.key and tls/ with their modes, checked; phones, keys and payments work as before", async () => {
    const { t, shop, phone, event, tls } = await boxWithData();
    const file = join(tempDir(), "b.cuadra");
    expect((await cuadra(t.dataDir, ["backup", "--to", file])).code).toBe(0);
    const keyBefore = readFileSync(join(t.dataDir, "master.key"));
    const dir = missing();
    clock.advance(3_600_000);
    const r = await cuadra(dir, ["restore", "--from", file, "--json"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.json).toEqual({
      restored_from: file,
      data_dir: dir,
      made_at: clock.now() - 3_600_000,
      shops: [{ tenant_id: shop.tenant_id, name: "Bodega Rosa" }],
      devices: 1,
      payments: 1,
      orders: 1,
      fingerprint: tls.fingerprint,
      kept_in: null,
    });
    expect(readdirSync(dir).sort()).toEqual([DB_FILE, "master.key", "serve.lock", "tls"]); // no -wal, -shm or staging left
    expect(mode(dir)).toBe(0o700);
    expect(mode(join(dir, DB_FILE))).toBe(0o600);
    expect(mode(join(dir, "master.key"))).toBe(0o600);
    expect(mode(join(dir, "tls"))).toBe(0o700);
    expect(mode(join(dir, "tls/key.pem"))).toBe(0o600);
    expect(mode(join(dir, "tls/cert.pem"))).toBe(0o644);
    expect(readFileSync(join(dir, "master.key")).equals(keyBefore)).toBe(true);
    expect(fingerprintOfPem(readFileSync(join(dir, "tls/cert.pem"), "utf8"))).toBe(tls.fingerprint);

    const store = openStore(dir);
    expect(store.sqlite.query("PRAGMA integrity_check").get()).toEqual({ integrity_check: "ok" });
    expect(tables(store.sqlite)).not.toContain("backup_files");
    expect(tables(store.sqlite)).not.toContain("backup_info");
    // The phone's secret opens with the restored key, the shop's key is recognised, the payment is there.
    const secretEnc = store.sqlite.query<{ s: string }, [string]>("SELECT secret_enc AS s FROM devices WHERE id = ?").get(phone.deviceId)!.s;
    expect(await (await createSecretBox(loadMasterKey(dir))).open(secretEnc)).toBe(phone.secret);
    expect(findActiveKey(store.db, shop.keys.live)).toMatchObject({ tenantId: shop.tenant_id });
    expect(store.sqlite.query("SELECT event_id FROM events").all()).toEqual([{ event_id: event.event_id }]);
    store.close();
    // The keys went back to their own files: no copy of them is left in the database's bytes.
    const bytes = readFileSync(join(dir, DB_FILE));
    expect(bytes.includes(keyBefore.subarray(0, 44))).toBe(false);
    expect(bytes.includes(Buffer.from(readFileSync(join(dir, "tls/key.pem"), "utf8").split("\n")[1]!))).toBe(false);
    await t.close();
  });

  test("says what it restored: shops, phones, payments, orders, the certificate's fingerprint and when the backup was made", async () => {
    const { t, tls } = await boxWithData();
    const file = join(tempDir(), "b.cuadra");
    await cuadra(t.dataDir, ["backup", "--to", file]);
    const dir = missing();
    const r = await cuadra(dir, ["restore", "--from", file]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`Backup ${file} restored into ${dir}.`);
    expect(r.stdout).toContain("Shops: Bodega Rosa");
    expect(r.stdout).toContain("Phones: 1 · Payments: 1 · Orders: 1");
    expect(r.stdout).toContain(`Certificate fingerprint: ${fingerprintForPeople(tls.fingerprint)}`);
    expect(r.stdout).toMatch(/Made: .*\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/);
    expect(r.stdout).toContain("cuadra serve");
    const es = await cuadra(missing(), ["restore", "--from", file], { LANG: "es_PE.UTF-8" });
    expect(es.stdout).toContain("Negocios: Bodega Rosa");
    expect(es.stdout).toContain("Teléfonos: 1");
    await t.close();
  });

  test("refused while a server holds the folder; nothing in it changes", async () => {
    const { t } = await boxWithData();
    const file = join(tempDir(), "b.cuadra");
    await cuadra(t.dataDir, ["backup", "--to", file]);
    const dir = tempDir();
    const serving = lockDataDir(dir)!; // as a running `cuadra serve` holds it
    const r = await cuadra(dir, ["restore", "--from", file]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`a 'cuadra serve' is running on the data folder ${dir}: stop it first`);
    expect(readdirSync(dir).filter((f) => !f.startsWith("serve.lock"))).toEqual([]);
    serving.release();
    expect((await cuadra(dir, ["restore", "--from", file])).code).toBe(0);
    // Released once done: a server can start.
    const server = lockDataDir(dir);
    expect(server).not.toBeNull();
    server!.release();
    await t.close();
  });

  test("refuses a file that is not a Cuadra backup, saying what it is; makes no folder", async () => {
    const { t } = await boxWithData();
    const folder = tempDir();
    const text = join(folder, "notes.txt");
    writeFileSync(text, "not a database at all, just some words to fill a page. ".repeat(100));
    const dbOnly = join(folder, "old-style.db");
    t.store.sqlite.run("VACUUM INTO ?", [dbOnly]); // what `backup` wrote before: the database alone
    const dir = missing();
    const notBackup = await cuadra(dir, ["restore", "--from", text]);
    expect(notBackup.code).toBe(1);
    expect(notBackup.stderr).toContain(`${text} is not a Cuadra backup`);
    const old = await cuadra(dir, ["restore", "--from", dbOnly]);
    expect(old.code).toBe(1);
    expect(old.stderr).toContain("without the box's keys");
    const none = await cuadra(dir, ["restore", "--from", join(folder, "nope.cuadra")]);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain(`there is no file ${join(folder, "nope.cuadra")}`);
    expect((await cuadra(dir, ["restore"])).code).toBe(2); // --from is required
    expect(existsSync(dir)).toBe(false);
    await t.close();
  });

  test("a backup changed by hand: another box's key is refused (nothing changes); crafted file modes are not obeyed", async () => {
    const { t } = await boxWithData();
    const folder = tempDir();
    const file = join(folder, "b.cuadra");
    expect((await cuadra(t.dataDir, ["backup", "--to", file])).code).toBe(0);
    await t.close();
    const other = tempDir();
    expect((await cuadra(other, ["init", "--name", "Otra"])).code).toBe(0);
    const tampered = join(folder, "tampered.cuadra");
    copyFileSync(file, tampered);
    const edit = new Database(tampered);
    edit.run("UPDATE backup_files SET content = ? WHERE name = 'master.key'", [readFileSync(join(other, "master.key"))]);
    edit.close();
    const dir = missing();
    const refused = await cuadra(dir, ["restore", "--from", tampered]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`the backup ${tampered} cannot be restored: its master.key does not belong to its database`);
    expect(existsSync(dir)).toBe(false);

    const crafted = join(folder, "crafted.cuadra");
    copyFileSync(file, crafted);
    const craft = new Database(crafted);
    craft.run("UPDATE backup_files SET mode = 511"); // 0777
    craft.close();
    expect((await cuadra(dir, ["restore", "--from", crafted])).code).toBe(0);
    expect(statSync(join(dir, "master.key")).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, "tls", "key.pem")).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, "tls", "cert.pem")).mode & 0o777).toBe(0o644);
  });

  test("refuses a damaged backup (integrity check) and changes nothing", async () => {
    const { t } = await boxWithData();
    // Enough rows that the middle of the file is table pages, not the backup's own tables.
    const many = t.store.sqlite.prepare("INSERT INTO news (id, tenant_id, title, body, level, published_at) VALUES (?, ?, 'Aviso', ?, 'info', 1)");
    const tenantId = t.store.sqlite.query<{ id: string }, []>("SELECT id FROM tenants").get()!.id;
    t.store.sqlite.transaction(() => {
      for (let i = 0; i < 3000; i++) many.run(`nws_${i}`, tenantId, "x".repeat(300));
    })();
    const file = join(tempDir(), "b.cuadra");
    expect((await cuadra(t.dataDir, ["backup", "--to", file])).code).toBe(0);
    damage(file);
    const dir = missing();
    const r = await cuadra(dir, ["restore", "--from", file]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`the backup ${file} is damaged`);
    expect(r.stderr).toContain("nothing was changed");
    expect(existsSync(dir)).toBe(false);
    await t.close();
  });

  test("refuses a folder that holds a box unless --force; with --force the old data is moved aside, not deleted", async () => {
    const a = await boxWithData();
    const file = join(tempDir(), "a.cuadra");
    await cuadra(a.t.dataDir, ["backup", "--to", file]);
    // Another box, in the folder restored into.
    const dir = tempDir();
    expect((await cuadra(dir, ["init", "--name", "Otra tienda"])).code).toBe(0);
    const before = Object.fromEntries([DB_FILE, "master.key", "tls/cert.pem", "tls/key.pem"].map((f) => [f, readFileSync(join(dir, f))]));

    const refused = await cuadra(dir, ["restore", "--from", file]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`the data folder ${dir} already holds a box (cuadra.db, master.key, tls)`);
    expect(refused.stderr).toContain("cuadra backup --to FILE");
    expect(refused.stderr).toContain("--force");
    for (const [f, content] of Object.entries(before)) expect(readFileSync(join(dir, f)).equals(content)).toBe(true);

    const forced = await cuadra(dir, ["restore", "--from", file, "--force", "--json"]);
    expect(forced.code).toBe(0);
    expect(forced.json.shops.map((s: { name: string }) => s.name)).toEqual(["Bodega Rosa"]);
    const kept = forced.json.kept_in as string;
    expect(kept).toStartWith(join(dir, "replaced-"));
    for (const [f, content] of Object.entries(before)) expect(readFileSync(join(kept, f)).equals(content)).toBe(true);
    expect(readFileSync(join(dir, "master.key")).equals(readFileSync(join(a.t.dataDir, "master.key")))).toBe(true);
    // The box that was there opens from where it was kept, with its own key.
    const old = openStore(kept);
    expect(old.sqlite.query("SELECT name FROM tenants").all()).toEqual([{ name: "Otra tienda" }]);
    old.close();
    await a.t.close();
  });

  test("a stale -wal and -shm in the folder are removed, never replayed into the restored database", async () => {
    const { t } = await boxWithData();
    const file = join(tempDir(), "b.cuadra");
    await cuadra(t.dataDir, ["backup", "--to", file]);
    // Another box's write-ahead log, with frames not yet in its database (as after a power cut).
    const other = tempDir();
    expect((await cuadra(other, ["init", "--name", "Otra tienda"])).code).toBe(0);
    const writer = new Database(join(other, DB_FILE));
    writer.run("PRAGMA wal_autocheckpoint = 0");
    writer.run("UPDATE tenants SET name = 'Otra tienda, cambiada'");
    const dir = tempDir();
    writeFileSync(join(dir, `${DB_FILE}-wal`), readFileSync(join(other, `${DB_FILE}-wal`)));
    writer.close();
    expect(statSync(join(dir, `${DB_FILE}-wal`)).size).toBeGreaterThan(4096);

    expect((await cuadra(dir, ["restore", "--from", file])).code).toBe(0);
    const store = openStore(dir);
    expect(store.sqlite.query("PRAGMA integrity_check").get()).toEqual({ integrity_check: "ok" });
    expect(store.sqlite.query("SELECT name FROM tenants").all()).toEqual([{ name: "Bodega Rosa" }]);
    store.close();
    await t.close();
  });

  test("refuses a backup whose index disagrees with its table: the full integrity check, which copying would hide", async () => {
    const { t } = await boxWithData();
    const file = join(tempDir(), "b.cuadra");
    await cuadra(t.dataDir, ["backup", "--to", file]);
    // One letter of the shop's id changed in the phones' index only: the page stays well formed.
    const raw = new Database(file, { readonly: true });
    const root = raw.query<{ rootpage: number }, []>("SELECT rootpage FROM sqlite_master WHERE name = 'devices_tenant_idx'").get()!.rootpage;
    const pageSize = raw.query<{ page_size: number }, []>("PRAGMA page_size").get()!.page_size;
    const tenantId = raw.query<{ id: string }, []>("SELECT id FROM tenants").get()!.id;
    raw.close();
    const bytes = readFileSync(file);
    const page = bytes.subarray((root - 1) * pageSize, root * pageSize);
    const at = page.indexOf(tenantId);
    expect(at).toBeGreaterThan(0);
    page[at + tenantId.length - 1] = tenantId.endsWith("A") ? 0x42 : 0x41;
    writeFileSync(file, bytes);
    const check = new Database(file, { readonly: true });
    expect(check.query("PRAGMA quick_check").get()).toEqual({ quick_check: "ok" }); // only the thorough check sees it
    expect(check.query("PRAGMA integrity_check").get()).not.toEqual({ integrity_check: "ok" });
    check.close();
    const dir = missing();
    const r = await cuadra(dir, ["restore", "--from", file]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`the backup ${file} is damaged`);
    expect(existsSync(dir)).toBe(false);
    await t.close();
  });
});

describe("the master key belongs to its database", () => {
  async function box() {
    const dir = tempDir();
    expect((await cuadra(dir, ["init", "--name", "Bodega Rosa"])).code).toBe(0);
    return dir;
  }

  test("master.key deleted: openStore refuses (BoxKeyError) and makes no new key", async () => {
    const dir = await box();
    rmSync(join(dir, "master.key"));
    expect(() => openStore(dir)).toThrow(BoxKeyError);
    expect(existsSync(join(dir, "master.key"))).toBe(false);
    // Nor does any other reader of the key make one behind openStore's back.
    expect(() => loadMasterKey(dir)).toThrow(BoxKeyError);
    expect(existsSync(join(dir, "master.key"))).toBe(false);
  });

  test("a database with no shop yet but a recorded key is refused too", () => {
    const dir = tempDir();
    openStore(dir).close();
    rmSync(join(dir, "master.key"));
    const error = thrown(() => openStore(dir));
    expect(error).toBeInstanceOf(BoxKeyError);
    expect((error as BoxKeyError).problem).toBe("missing");
    expect(existsSync(join(dir, "master.key"))).toBe(false);
  });

  test("another box's master.key: refused, and the database is left as it was", async () => {
    const dir = await box();
    const other = await box();
    writeFileSync(join(dir, "master.key"), readFileSync(join(other, "master.key")));
    const db = readFileSync(join(dir, DB_FILE));
    const error = thrown(() => openStore(dir));
    expect(error).toBeInstanceOf(BoxKeyError);
    expect((error as BoxKeyError).problem).toBe("mismatch");
    expect((error as Error).message).toContain("Do not delete the database");
    expect(readFileSync(join(dir, DB_FILE)).equals(db)).toBe(true);
  });

  test("a damaged master.key is refused", async () => {
    const dir = await box();
    writeFileSync(join(dir, "master.key"), "c2hvcnQ=\n");
    expect(() => openStore(dir)).toThrow(expect.objectContaining({ problem: "damaged" }));
  });

  test("a brand-new folder gets a new key (0600), and its database records the key's check value", () => {
    const dir = missing();
    const store = openStore(dir);
    expect(mode(join(dir, "master.key"))).toBe(0o600);
    const row = store.sqlite.query<{ value: string }, [string]>("SELECT value FROM box_settings WHERE key = ?").get(MASTER_KEY_CHECK_SETTING);
    expect(row).toEqual({ value: masterKeyCheck(loadMasterKey(dir)) });
    expect(row!.value).not.toContain(Buffer.from(loadMasterKey(dir)).toString("hex"));
    store.close();
  });

  test("a database from before the check gets one when opened, and is protected from then on", async () => {
    const dir = await box();
    const raw = new Database(join(dir, DB_FILE));
    raw.run("DELETE FROM box_settings WHERE key = ?", [MASTER_KEY_CHECK_SETTING]);
    raw.close();
    const store = openStore(dir);
    expect(store.sqlite.query("SELECT value FROM box_settings WHERE key = ?").get(MASTER_KEY_CHECK_SETTING)).toEqual({ value: masterKeyCheck(loadMasterKey(dir)) });
    store.close();
    writeFileSync(join(dir, "master.key"), readFileSync(join(await box(), "master.key")));
    expect(() => openStore(dir)).toThrow(BoxKeyError);
  });

  test("the command line says which files, and to put the key back from a backup, never to delete the database", async () => {
    const dir = await box();
    rmSync(join(dir, "master.key"));
    const r = await cuadra(dir, ["tenant", "list"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`the key file ${join(dir, "master.key")} is missing, but the database ${join(dir, DB_FILE)} holds this box's data`);
    expect(r.stderr).toContain("cuadra restore --from FILE");
    expect(r.stderr).toContain("Do not delete the database");
    const es = await cuadra(dir, ["tenant", "list"], { LANG: "es_PE.UTF-8" });
    expect(es.stderr).toContain("falta el archivo de clave");
    expect(es.stderr).toContain("No borres la base de datos");
    expect(existsSync(join(dir, "master.key"))).toBe(false);
  });
});

describe("serve's check of the database", () => {
  /** A box with a few thousand payments, stopped. */
  async function boxWithEvents(n = 4000) {
    const dir = tempDir();
    expect((await cuadra(dir, ["init", "--name", "Bodega Rosa"])).code).toBe(0);
    const db = new Database(join(dir, DB_FILE));
    const tenantId = db.query<{ id: string }, []>("SELECT id FROM tenants").get()!.id;
    const insert = db.prepare(
      `INSERT INTO events (event_id, device_id, tenant_id, environment, kind, source, amount, currency, payer_name, occurred_at, received_at,
         body_hash, response_status, response_body, match_status) VALUES (?, NULL, ?, 'live', 'payment.received', 'yape', ?, 'PEN', 'Yanina Man*', ?, ?, 'h', 201, '{}', 'unmatched')`,
    );
    db.transaction(() => {
      for (let i = 0; i < n; i++) insert.run(`evt-${i}`, tenantId, 100 + i, i, i);
    })();
    // Everything into the database file (another connection of this process may still be open).
    db.run("PRAGMA wal_checkpoint(TRUNCATE)");
    db.close();
    return dir;
  }

  test("a sound database passes, in full or (large) its own tables only", async () => {
    const store = openStore(await boxWithEvents());
    expect(() => checkDatabase(store)).not.toThrow();
    expect(() => checkDatabase(store, 0)).not.toThrow();
    store.close();
  });

  test("a damaged one is refused with what to do: restore the last backup, keep the folder", async () => {
    const dir = await boxWithEvents();
    damage(join(dir, DB_FILE), 4);
    let error: any;
    try {
      const store = openStore(dir);
      try {
        checkDatabase(store);
      } finally {
        store.close();
      }
    } catch (e) {
      error = e;
    }
    expect(error?.key).toBe("cli.integrity.damaged");
    expect(error.message).toContain(`the database ${join(dir, DB_FILE)} is damaged`);
    expect(error.message).toContain("cuadra restore --from FILE --force");
    expect(error.message).toContain("Do not delete the data folder");
  });

  test("in a database larger than the full-check limit, the payments' pages are left to backup and restore", async () => {
    const dir = await boxWithEvents();
    damage(join(dir, DB_FILE), 4);
    const store = openStore(dir);
    expect(() => checkDatabase(store, 0)).not.toThrow();
    expect(() => checkDatabase(store)).toThrow();
    store.close();
  });

  test("other commands name a database too damaged to open the same way", async () => {
    const dir = await boxWithEvents();
    writeFileSync(join(dir, DB_FILE), Buffer.alloc(8192, 0x5a));
    const r = await cuadra(dir, ["tenant", "list"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`the database ${join(dir, DB_FILE)} is damaged`);
  });
});
