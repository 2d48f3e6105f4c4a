// `backup` and `restore` (contract §1, issue 15): one file that restores a whole box.
//
// The backup file is itself a SQLite database: the copy of every table that VACUUM INTO makes (one
// snapshot, so it is consistent and safe while the server writes), plus two tables of its own:
//   backup_files(name TEXT PRIMARY KEY, mode INTEGER, content BLOB)  master.key, tls/cert.pem, tls/key.pem
//   backup_info(key TEXT PRIMARY KEY, value TEXT)                     format, made_at, cuadra_version,
//                                                                     data_dir, tls_fingerprint
// Anyone can open it with sqlite3; it holds the box's keys, so it is written readable by its owner
// only, from the first byte: inside a fresh 0700 folder beside the target, then moved into place.
// `restore` puts the database (without those two tables), master.key and tls/ back, checked and
// opened as the box will open it before anything in the data folder is touched.
import { Database } from "bun:sqlite";
import { accessSync, chmodSync, closeSync, constants, copyFileSync, existsSync, linkSync, mkdirSync, mkdtempSync, openSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { localTime } from "../i18n/format";
import { fingerprintForPeople, fingerprintOfPem } from "../pairing/uri";
import { lockDataDir } from "../store/data-dir";
import { BoxKeyError, DB_FILE, openStore } from "../store/db";
import { MASTER_KEY_FILE } from "../store/secret-box";
import { VERSION } from "../version";
import { CliError, requireString, type Command, type CommandContext } from "./framework";
import { databaseProblems, isDamage } from "./integrity";
import { shellWord } from "./data-dir";

/** The version of the backup file's own tables; a newer one is refused by restore. */
export const BACKUP_FORMAT = 1;
const FILES_TABLE = "backup_files";
const INFO_TABLE = "backup_info";
const CERT_FILE = "tls/cert.pem";

/** The files beside the database that make the box what it is, and the mode each is restored with. */
const BOX_FILES: { name: string; mode: number }[] = [
  { name: MASTER_KEY_FILE, mode: 0o600 },
  { name: CERT_FILE, mode: 0o644 },
  { name: "tls/key.pem", mode: 0o600 },
];

export interface BackupResult {
  file: string;
  bytes: number;
}

export interface RestoreResult {
  restored_from: string;
  data_dir: string;
  made_at: number | null;
  shops: { tenant_id: string; name: string }[];
  devices: number;
  payments: number;
  orders: number;
  fingerprint: string | null;
  /** Where the data that was in the folder was moved (with --force), else null. */
  kept_in: string | null;
}

const isDirectory = (path: string) => {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
};

/** Moves `from` to `to` unless `to` exists, even if it appears meanwhile (link fails on an existing name). */
function moveNoClobber(from: string, to: string, exists: () => CliError): void {
  try {
    linkSync(from, to);
    return;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "EEXIST") throw exists();
    // A file system without hard links (FAT on a USB stick): rename, after looking.
    if (existsSync(to)) throw exists();
    renameSync(from, to);
  }
}

function writeBackup(ctx: CommandContext, file: string): BackupResult {
  const folder = dirname(file);
  if (!isDirectory(folder)) throw new CliError("cli.backup.no_folder", { folder });
  if (existsSync(file)) throw new CliError("cli.backup.exists", { file });
  const store = ctx.store(); // refuses a folder without a database, or whose master.key is not its own
  const dataDir = resolve(ctx.dataDir);
  // A folder only its owner can enter (mkdtemp: 0700), beside the target so the last move is a rename.
  const staging = mkdtempSync(join(folder, ".cuadra-backup-"));
  try {
    const tmp = join(staging, "backup.db");
    closeSync(openSync(tmp, "wx", 0o600)); // VACUUM INTO fills an empty file and keeps its mode
    // VACUUM INTO reads one snapshot, so concurrent writers neither block nor tear the copy.
    store.sqlite.run("VACUUM INTO ?", [tmp]);
    const files = BOX_FILES.flatMap(({ name, mode }) => {
      const path = join(dataDir, name);
      return existsSync(path) ? [{ name, mode, content: readFileSync(path) }] : [];
    });
    const cert = files.find((f) => f.name === CERT_FILE);
    const info: Record<string, string> = {
      format: String(BACKUP_FORMAT),
      made_at: String(ctx.clock.now()),
      cuadra_version: VERSION,
      data_dir: dataDir,
      ...(cert ? { tls_fingerprint: fingerprintOfPem(cert.content.toString("utf8")) } : {}),
    };
    const copy = new Database(tmp, { strict: true });
    try {
      copy.run("PRAGMA journal_mode = DELETE"); // one self-contained file, no -wal beside it
      copy.run(`CREATE TABLE ${FILES_TABLE} (name TEXT PRIMARY KEY, mode INTEGER NOT NULL, content BLOB NOT NULL)`);
      copy.run(`CREATE TABLE ${INFO_TABLE} (key TEXT PRIMARY KEY, value TEXT NOT NULL)`);
      copy.transaction(() => {
        for (const f of files) copy.run(`INSERT INTO ${FILES_TABLE} (name, mode, content) VALUES (?, ?, ?)`, [f.name, f.mode, f.content]);
        for (const [k, v] of Object.entries(info)) copy.run(`INSERT INTO ${INFO_TABLE} (key, value) VALUES (?, ?)`, [k, v]);
      })();
    } finally {
      copy.close();
    }
    chmodSync(tmp, 0o600);
    moveNoClobber(tmp, file, () => new CliError("cli.backup.exists", { file }));
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  return { file, bytes: statSync(file).size };
}

function sizeText(bytes: number): string {
  if (bytes < 1024 * 1024) return `${Math.max(1, Math.round(bytes / 1024))} KB`;
  if (bytes < 1024 * 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
  return `${(bytes / (1024 * 1024 * 1024)).toFixed(2)} GB`;
}

interface BackupContents {
  info: Record<string, string>;
  files: { name: string; mode: number; content: Buffer }[];
}

const tableExists = (db: Database, name: string) => db.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== null;

/** The backup's own tables, read without changing the file; a CliError when it is not a backup this version can restore. */
function readBackup(file: string): BackupContents {
  if (!existsSync(file) || isDirectory(file)) throw new CliError("cli.restore.no_file", { file });
  // A backup this user may not read is a permission problem (whose file, which command), not "not a backup".
  accessSync(file, constants.R_OK);
  let db: Database;
  try {
    db = new Database(file, { readonly: true, strict: true });
  } catch {
    throw new CliError("cli.restore.not_backup", { file });
  }
  try {
    let hasFiles: boolean;
    try {
      hasFiles = tableExists(db, FILES_TABLE) && tableExists(db, INFO_TABLE);
    } catch (e) {
      // "file is not a database": a text file, a photo, an encrypted archive…
      if (/NOTADB/.test(String((e as { code?: string }).code))) throw new CliError("cli.restore.not_backup", { file });
      if (isDamage(e)) throw new CliError("cli.restore.damaged", { file, detail: (e as Error).message });
      throw e;
    }
    if (!hasFiles) throw new CliError(tableExists(db, "tenants") ? "cli.restore.database_only" : "cli.restore.not_backup", { file });
    try {
      const info = Object.fromEntries(db.query<{ key: string; value: string }, []>(`SELECT key, value FROM ${INFO_TABLE}`).all().map((r) => [r.key, r.value]));
      if (!(Number(info.format) >= 1)) throw new CliError("cli.restore.not_backup", { file });
      if (Number(info.format) > BACKUP_FORMAT) throw new CliError("cli.restore.newer_format", { file });
      const files = db
        .query<{ name: string; mode: number; content: Uint8Array }, []>(`SELECT name, mode, content FROM ${FILES_TABLE}`)
        .all()
        .map((r) => ({ name: r.name, mode: r.mode, content: Buffer.from(r.content) }));
      // Only the files a box has, and at least its key: nothing else is written into the data folder.
      if (!files.some((f) => f.name === MASTER_KEY_FILE) || files.some((f) => !BOX_FILES.some((b) => b.name === f.name))) {
        throw new CliError("cli.restore.not_backup", { file });
      }
      return { info, files };
    } catch (e) {
      if (isDamage(e)) throw new CliError("cli.restore.damaged", { file, detail: (e as Error).message });
      throw e;
    }
  } finally {
    db.close();
  }
}

/** What a data folder already holds of a box. */
const boxFilesIn = (dataDir: string) => [DB_FILE, MASTER_KEY_FILE, "tls"].filter((n) => existsSync(join(dataDir, n)));

const pad = (n: number) => String(n).padStart(2, "0");
function stamp(ms: number): string {
  const d = new Date(ms);
  return `${d.getFullYear()}${pad(d.getMonth() + 1)}${pad(d.getDate())}-${pad(d.getHours())}${pad(d.getMinutes())}${pad(d.getSeconds())}`;
}

/** Moves what the folder holds of a box into a new folder inside it; returns that folder. */
function moveAside(dataDir: string, now: number): string {
  let kept = join(dataDir, `replaced-${stamp(now)}`);
  for (let i = 2; existsSync(kept); i++) kept = join(dataDir, `replaced-${stamp(now)}-${i}`);
  mkdirSync(kept, { mode: 0o700 });
  // The -wal and -shm go with their database: together they are still a readable database.
  for (const name of [DB_FILE, `${DB_FILE}-wal`, `${DB_FILE}-shm`, `${DB_FILE}-journal`, MASTER_KEY_FILE, "tls"]) {
    if (existsSync(join(dataDir, name))) renameSync(join(dataDir, name), join(kept, name));
  }
  return kept;
}

function restoreBackup(ctx: CommandContext, from: string, force: boolean): RestoreResult {
  const backup = readBackup(from); // before the data folder is made or touched
  const dataDir = resolve(ctx.dataDir);
  const madeFolder = !existsSync(dataDir);
  // The lock a running serve holds: held for the whole restore, so no server starts meanwhile.
  const held = lockDataDir(dataDir);
  if (!held) throw new CliError("cli.restore.server_running", { path: dataDir });
  let done = false;
  try {
    const present = boxFilesIn(dataDir);
    if (present.length > 0 && !force) throw new CliError("cli.restore.would_replace", { path: dataDir, files: present.join(", ") });
    // Everything is made and checked here first; the data folder changes only once it all worked.
    const staging = mkdtempSync(join(dataDir, ".restore-"));
    try {
      const db = join(staging, DB_FILE);
      copyFileSync(from, db);
      chmodSync(db, 0o600);
      const copy = new Database(db, { strict: true });
      try {
        const problems = databaseProblems(copy, { thorough: true });
        if (problems.length > 0) throw new CliError("cli.restore.damaged", { file: from, detail: problems.slice(0, 3).join("; ").slice(0, 300) });
        // The keys go back to their own files. secure_delete zeroes the dropped tables' pages, so no
        // copy of them stays in the database's free pages (cheaper than a VACUUM, which on a large
        // box rewrites the whole file through a temporary one as large).
        copy.run("PRAGMA secure_delete = ON");
        copy.run(`DROP TABLE ${FILES_TABLE}`);
        copy.run(`DROP TABLE ${INFO_TABLE}`);
      } catch (e) {
        if (isDamage(e)) throw new CliError("cli.restore.damaged", { file: from, detail: (e as Error).message });
        throw e;
      } finally {
        copy.close();
      }
      for (const f of backup.files) {
        const path = join(staging, f.name);
        // The box's own modes, never the file's: a crafted backup must not make a key world-readable.
        const mode = BOX_FILES.find((b) => b.name === f.name)!.mode;
        mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
        writeFileSync(path, f.content, { mode, flag: "wx" });
        chmodSync(path, mode);
      }
      // Opened as the box will open it: an older backup's migrations apply, and its master.key must be its database's.
      try {
        openStore(staging).close();
      } catch (e) {
        if (e instanceof BoxKeyError) throw new CliError("cli.restore.key_mismatch", { file: from });
        throw e;
      }
      for (const leftover of [`${DB_FILE}-wal`, `${DB_FILE}-shm`]) rmSync(join(staging, leftover), { force: true });

      const keptIn = present.length > 0 ? moveAside(dataDir, ctx.clock.now()) : null;
      // A stale WAL beside a new database would be replayed into it.
      for (const stale of [`${DB_FILE}-wal`, `${DB_FILE}-shm`, `${DB_FILE}-journal`]) rmSync(join(dataDir, stale), { force: true });
      // The database first: stopped half-way, a folder with a database and no master.key is refused
      // by every command (restore again), where a key without a database would start an empty box.
      renameSync(db, join(dataDir, DB_FILE));
      for (const name of [MASTER_KEY_FILE, "tls"]) {
        if (existsSync(join(staging, name))) renameSync(join(staging, name), join(dataDir, name));
      }
      done = true;
      return summary(ctx, from, dataDir, backup, keptIn);
    } finally {
      rmSync(staging, { recursive: true, force: true });
    }
  } finally {
    // A refused restore into a folder it made leaves nothing behind; the lock goes last.
    if (!done && madeFolder) rmSync(dataDir, { recursive: true, force: true });
    held.release();
  }
}

function summary(ctx: CommandContext, from: string, dataDir: string, backup: BackupContents, keptIn: string | null): RestoreResult {
  const store = openStore(dataDir);
  try {
    const n = (sql: string) => store.sqlite.query<{ n: number }, []>(sql).get()!.n;
    const cert = backup.files.find((f) => f.name === CERT_FILE);
    const madeAt = Number(backup.info.made_at);
    return {
      restored_from: from,
      data_dir: dataDir,
      made_at: Number.isFinite(madeAt) && madeAt > 0 ? madeAt : null,
      shops: store.sqlite
        .query<{ tenant_id: string; name: string }, []>("SELECT id AS tenant_id, name FROM tenants ORDER BY created_at, id")
        .all(),
      devices: n("SELECT count(*) AS n FROM devices WHERE status = 'active'"),
      payments: n("SELECT count(*) AS n FROM events"),
      orders: n("SELECT count(*) AS n FROM orders"),
      fingerprint: cert ? fingerprintOfPem(cert.content.toString("utf8")) : null,
      kept_in: keptIn,
    };
  } finally {
    store.close();
  }
}

const count = (n: number, ctx: CommandContext) => n.toLocaleString(ctx.lang === "es" ? "es-PE" : "en-GB");

function restoreHuman(r: RestoreResult, ctx: CommandContext): string {
  const { t } = ctx;
  return [
    t("cli.restore.done", { file: r.restored_from, path: r.data_dir }),
    ...(r.made_at !== null ? [t("cli.restore.made_at", { when: localTime(r.made_at, ctx.lang, t) })] : []),
    r.shops.length > 0 ? t("cli.restore.shops", { names: r.shops.map((s) => s.name).join(", ") }) : t("cli.restore.no_shops"),
    t("cli.restore.counts", { devices: count(r.devices, ctx), payments: count(r.payments, ctx), orders: count(r.orders, ctx) }),
    r.fingerprint ? t("cli.restore.fingerprint", { fp: fingerprintForPeople(r.fingerprint) }) : t("cli.restore.no_certificate"),
    ...(r.kept_in ? [t("cli.restore.kept", { path: r.kept_in })] : []),
    t("cli.restore.next"),
  ].join("\n");
}

export const backupCommands: Command[] = [
  {
    path: ["backup"],
    summary: "cli.cmd.backup",
    options: { to: { type: "string", value: "FILE", required: true, description: "cli.opt.backup_to" } },
    run: (ctx, o) => writeBackup(ctx, resolve(requireString(o, "to"))),
    human: (r: BackupResult, ctx) => {
      const hasTls = existsSync(join(resolve(ctx.dataDir), CERT_FILE));
      return [
        ctx.t("cli.backup.written", { file: r.file, size: sizeText(r.bytes) }),
        ctx.t(hasTls ? "cli.backup.holds_all" : "cli.backup.holds_no_tls"),
        ctx.t("cli.backup.keep_safe"),
        ctx.t("cli.backup.how_to_restore", {
          command: ["cuadra", "restore", "--from", r.file, ...(ctx.dataDir === "./cuadra-data" ? [] : ["--data-dir", resolve(ctx.dataDir)])].map(shellWord).join(" "),
        }),
      ].join("\n");
    },
  },
  {
    path: ["restore"],
    summary: "cli.cmd.restore",
    createsDataDir: true,
    options: {
      from: { type: "string", value: "FILE", required: true, description: "cli.opt.restore_from" },
      force: { type: "boolean", description: "cli.opt.restore_force" },
    },
    run: (ctx, o) => restoreBackup(ctx, resolve(requireString(o, "from")), o.force === true),
    human: restoreHuman,
  },
];
