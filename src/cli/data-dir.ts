// Which data folder a command uses, and what a person is told when it cannot: a folder that is not
// there (commands that read never create one), a folder of another user, an unknown shop or phone.
import { existsSync, readFileSync, statSync } from "node:fs";
import { userInfo } from "node:os";
import { dirname, join, resolve } from "node:path";
import { BoxKeyError, DB_FILE, NewerDataError, openStore, type Store } from "../store/db";
import { NotFoundError } from "../tenants/service";
import { CliError, type CommandContext } from "./framework";
import { isDamage } from "./integrity";

/**
 * The data dir's database. Only init, serve, tenant create and restore make a new one (contract §1:
 * "created on first use"); any other command run from the wrong folder would otherwise report an
 * empty box, and leave an empty folder behind.
 */
export function openDataDir(dataDir: string, create: boolean): Store {
  const path = resolve(dataDir);
  if (!create) {
    if (!present(path)) throw new CliError("cli.data.missing", { path });
    if (!present(join(path, DB_FILE))) throw new CliError("cli.data.no_database", { path, file: join(path, DB_FILE) });
  }
  return openStore(dataDir);
}

/** Whether a file is there; a folder we may not look into is a permission problem, not "missing". */
function present(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT" || (e as NodeJS.ErrnoException).code === "ENOTDIR") return false;
    throw e;
  }
}

const PERMISSION_CODES = new Set(["EACCES", "EPERM", "EROFS", "SQLITE_CANTOPEN", "SQLITE_READONLY", "SQLITE_PERM", "SQLITE_AUTH"]);

function isPermissionProblem(e: unknown): e is Error & { code?: string; path?: string } {
  if (!(e instanceof Error)) return false;
  const code = (e as { code?: string }).code ?? "";
  return PERMISSION_CODES.has(code) || PERMISSION_CODES.has(code.split("_").slice(0, 2).join("_")) || /permission denied|unable to open database file|readonly database/i.test(e.message);
}

/** The user name of a uid, from /etc/passwd (no process to start; null when unknown). */
function userName(uid: number): string | null {
  try {
    for (const line of readFileSync("/etc/passwd", "utf8").split("\n")) {
      const [name, , id] = line.split(":");
      if (id !== undefined && Number(id) === uid) return name!;
    }
  } catch {
    // no /etc/passwd: the uid is named as a number below
  }
  return null;
}

/** The file a permission error is about: the one named by the error, else the database, else the nearest folder there is. */
function blockedFile(e: { path?: string }, dataDir: string): string {
  let path = e.path ? resolve(e.path) : join(resolve(dataDir), DB_FILE);
  while (!existsSync(path) && dirname(path) !== path) path = dirname(path);
  return path;
}

function permissionMessage(e: { path?: string }, ctx: CommandContext): string {
  const file = blockedFile(e, ctx.dataDir);
  let ownerUid: number | null = null;
  try {
    ownerUid = statSync(file).uid;
  } catch {
    // unreadable even to stat: say what we can
  }
  const uid = process.getuid?.();
  const me = (uid === undefined ? null : userName(uid)) ?? userInfo().username;
  const owner = ownerUid === null ? null : (userName(ownerUid) ?? String(ownerUid));
  if (owner !== null && ownerUid !== uid) {
    const command = ["sudo", "-u", owner, "cuadra", ...ctx.argv.map(shellWord)].join(" ");
    return ctx.t("cli.permission.other_user", { file, owner, me, command });
  }
  return ctx.t("cli.permission.denied", { file });
}

/** A word as a shell reads it back: quoted when it holds anything but plain characters. */
export const shellWord = (w: string) => (/^[\w@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`);

/** What a person reads for a failure (exit 1), in their language, naming the data folder where it matters. */
export function explainFailure(e: unknown, ctx: CommandContext): string {
  const path = resolve(ctx.dataDir);
  if (e instanceof CliError) return ctx.t(e.key, e.values);
  // issue 15: a master.key that is not the database's own, or a damaged database: what to put back, never "delete it".
  if (e instanceof BoxKeyError) return ctx.t(`cli.box_key.${e.problem}`, { key: e.keyFile, db: e.dbFile });
  if (isDamage(e)) return ctx.t("cli.integrity.damaged", { file: join(path, DB_FILE), path, detail: (e as Error).message });
  if (e instanceof NewerDataError) return ctx.t("cli.data.newer", { path });
  if (e instanceof NotFoundError) return ctx.t(`cli.not_found.${e.kind}`, { id: e.id, path });
  if (isPermissionProblem(e)) return permissionMessage(e, ctx);
  const missing = e as NodeJS.ErrnoException;
  if (missing.code === "ENOENT" && missing.path) return ctx.t("cli.file.missing", { file: resolve(missing.path) });
  return e instanceof Error ? e.message : String(e);
}
