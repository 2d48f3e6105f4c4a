// What the console's pages read that the connector does not already offer (contract §18): today's
// totals and the payments newest first, by status and wallet. Each query reads one index range
// (test/console-query-plans.test.ts); the rest comes from the connector's own services.
import type { Database } from "bun:sqlite";
import { and, desc, eq, lt, sql, type SQL } from "drizzle-orm";
import { drizzle } from "drizzle-orm/bun-sqlite";
import * as schema from "../store/schema";
import { cursorsOf } from "../connector/cursor";
import { MATCH_STATUSES } from "../connector/model";
import type { Scope } from "../matching/store";
import { perConnection, type Store } from "../store/db";
import { events, hourOf, OCCURRED_HOUR } from "../store/schema";

export type MatchStatus = (typeof MATCH_STATUSES)[number];

export const CONSOLE_SQL = {
  // events_hour_amount_idx, read alone (it carries amount, match_status and source): one range of
  // hours, then the exact instants. Duplicates are other phones' copies of a payment: not counted.
  todayByWallet: `SELECT source, match_status AS status, count(*) AS n, sum(amount) AS total FROM events
    WHERE tenant_id = ?1 AND environment = ?2 AND ${OCCURRED_HOUR} BETWEEN ?3 AND ?4 AND occurred_at >= ?5 AND occurred_at <= ?6
      AND match_status <> 'duplicate'
    GROUP BY source, match_status`,
} as const;

const p = sql.placeholder;

/** Prepared once per connection (exported for the query-plan tests). */
export const consoleStatements = perConnection((client: Database) => {
  const db = drizzle(client, { schema });
  const newest = (where: SQL | undefined) => db.select().from(events).where(where).orderBy(desc(events.seq)).limit(p("limit")).prepare();
  const scoped = [eq(events.tenantId, p("tenantId")), eq(events.environment, p("environment")), eq(events.matchStatus, p("status")), lt(events.seq, p("before"))];
  return {
    todayByWallet: client.prepare<{ source: string; status: MatchStatus; n: number; total: number }, [string, string, number, number, number, number]>(CONSOLE_SQL.todayByWallet),
    // events_status_idx backwards: the newest of one status.
    newestOfStatus: newest(and(...scoped)),
    // events_source_idx backwards: the newest of one wallet and status.
    newestOfWalletStatus: newest(and(eq(events.source, p("source")), ...scoped)),
  };
});

export interface WalletDay {
  source: string;
  count: number;
  total: number;
}

export interface DaySummary {
  received: { count: number; total: number };
  matched: number;
  waiting: number;
  wallets: WalletDay[];
}

/** contract §18 "Hoy": payments that happened from `from` to `to`, by wallet and outcome. */
export function daySummary(store: Store, scope: Scope, from: number, to: number): DaySummary {
  const rows = consoleStatements(store.db).todayByWallet.all(scope.tenantId, scope.environment, hourOf(from), hourOf(to), from, to);
  const wallets = new Map<string, WalletDay>();
  const summary: DaySummary = { received: { count: 0, total: 0 }, matched: 0, waiting: 0, wallets: [] };
  for (const r of rows) {
    const w = wallets.get(r.source) ?? { source: r.source, count: 0, total: 0 };
    w.count += r.n;
    w.total += r.total;
    wallets.set(r.source, w);
    summary.received.count += r.n;
    summary.received.total += r.total;
    if (r.status === "matched") summary.matched += r.n;
    else summary.waiting += r.n;
  }
  summary.wallets = [...wallets.values()].sort((a, b) => b.total - a.total || a.source.localeCompare(b.source));
  return summary;
}

export interface PaymentsQuery {
  statuses: readonly MatchStatus[];
  source?: string;
  /** A cursor of this list (the events cursor of §12, so it is opaque and bound to the scope). */
  before?: string;
  limit: number;
}

/**
 * contract §18 "Pagos": payments newest first, of some statuses and optionally one wallet. One index
 * range per status, merged, as the connector's events view does in the other direction.
 */
export function newestPayments(store: Store, scope: Scope, q: PaymentsQuery) {
  const s = consoleStatements(store.db);
  const cursors = cursorsOf(store);
  const before = q.before ? (cursors.parse("event", scope, q.before) ?? Number.MAX_SAFE_INTEGER) : Number.MAX_SAFE_INTEGER;
  const rows = store.db.transaction(() =>
    q.statuses.flatMap((status) =>
      q.source === undefined
        ? s.newestOfStatus.all({ ...scope, status, before, limit: q.limit + 1 })
        : s.newestOfWalletStatus.all({ ...scope, status, before, limit: q.limit + 1, source: q.source }),
    ),
  );
  rows.sort((a, b) => b.seq - a.seq);
  const page = rows.slice(0, q.limit);
  const more = rows.length > q.limit;
  return { rows: page, next: more ? cursors.encode("event", scope, page[page.length - 1]!.seq) : null };
}

export const ALL_MATCH_STATUSES: readonly MatchStatus[] = MATCH_STATUSES;
