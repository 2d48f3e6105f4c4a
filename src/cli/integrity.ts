// serve refuses a damaged database (issue 15): a box that starts on one answers wrongly or fails
// later, in the middle of a sale. What a person is told is to restore the last backup and keep the
// damaged folder aside, never to delete it.
//
// PRAGMA quick_check reads every page of the database: on the bench database (1 000 000 events,
// 100 000 orders, 1.2 GB) it took 1.1 s with the file in the OS cache and 27 s from disk on the
// 2-core test machine; a Raspberry Pi reading an SD card at boot is no faster. So every start checks
// the whole database only while it is small (FULL_CHECK_MAX_BYTES: about 60 ms cached and 1.5 s
// from disk here); a larger one has its own tables checked (shops, keys, phones, settings: a few
// pages) and the schema read, the history tables (events, orders, …) being left to the full check
// of `restore` and to the copy `backup` makes, which reads every row.
import type { Database } from "bun:sqlite";
import { dirname } from "node:path";
import type { Store } from "../store/db";
import { CliError } from "./framework";

/** Databases up to this size get a full quick_check at every serve start. */
export const FULL_CHECK_MAX_BYTES = 64 * 1024 * 1024;

/** Tables that grow with every payment, order or message: checked at start only in a small database. */
const HISTORY_TABLES = new Set(["events", "orders", "matches", "notifications", "webhook_messages", "feed_acks", "console_links", "console_sessions"]);

/**
 * The problems PRAGMA quick_check (or integrity_check, with `thorough`) finds, at most 10; [] when
 * the database is sound. `tables` limits it to those tables and their indexes.
 */
export function databaseProblems(sqlite: Database, opts: { thorough?: boolean; tables?: string[] } = {}): string[] {
  const pragma = opts.thorough ? "integrity_check" : "quick_check";
  const run = (arg: string) =>
    sqlite
      .query<Record<string, string>, []>(`PRAGMA ${pragma}(${arg})`)
      .all()
      .map((r) => String(Object.values(r)[0]));
  const found = opts.tables ? opts.tables.flatMap((t) => run(`"${t.replace(/"/g, '""')}"`)) : run("10");
  return found.filter((m) => m !== "ok").slice(0, 10);
}

/** Throws a CliError for a person when the store's database fails the start-up check (see above). */
export function checkDatabase(store: Store, maxFullBytes = FULL_CHECK_MAX_BYTES): void {
  const { sqlite } = store;
  let problems: string[];
  try {
    const pages = sqlite.query<{ n: number }, []>("SELECT page_count * page_size AS n FROM pragma_page_count(), pragma_page_size()").get()!.n;
    const tables = sqlite
      .query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
      .all()
      .map((r) => r.name);
    problems = pages <= maxFullBytes ? databaseProblems(sqlite) : databaseProblems(sqlite, { tables: tables.filter((t) => !HISTORY_TABLES.has(t)) });
  } catch (e) {
    // So damaged that the check itself cannot read it (SQLITE_CORRUPT, SQLITE_NOTADB).
    if (!isDamage(e)) throw e;
    problems = [(e as Error).message];
  }
  if (problems.length > 0) throw damaged(store.path, problems);
}

export const isDamage = (e: unknown): boolean => /^SQLITE_(CORRUPT|NOTADB)/.test(String((e as { code?: unknown })?.code ?? ""));

export function damaged(dbFile: string, problems: string[]): CliError {
  const detail = problems.slice(0, 3).join("; ").slice(0, 300);
  return new CliError("cli.integrity.damaged", { file: dbFile, path: dirname(dbFile), detail });
}
