// Order sync over a backlog, in process, on a copy of the loaded database: the shop syncs one order
// created days ago, on an amount that many waiting payments (counter sales) carry, and every one of
// them in the order's window is re-evaluated (contract §10) inside the sync's transaction, which
// holds the write lock meanwhile. Before re-evaluation read each order's decision once per payment
// (quadratic), 3 days of backlog took 16.6 s here.
import { join } from "node:path";
import { syncOrders } from "../src/connector/orders.service";
import { openStore } from "../src/store/db";
import type { Environment } from "../src/store/schema";
import { copyDataDir, type SeedMeta } from "./seed";

const DAY = 24 * 3600_000;

export interface BacklogSync {
  daysBack: number;
  /** Waiting payments of the order's amount inside its window. */
  waiting: number;
  ms: number;
  /** How many of them the sync turned from unmatched to ambiguous. */
  nowAmbiguous: number;
}

/** One order per case, each on a different one of the commonest waiting amounts, in one copy of the seed. */
export function backlogSyncs(seed: { dir: string; meta: SeedMeta }, workDir: string, daysBack: number[]): BacklogSync[] {
  const dataDir = join(workDir, "data");
  copyDataDir(seed.dir, dataDir);
  const store = openStore(dataDir);
  try {
    const scope = { tenantId: seed.meta.tenantId, environment: "live" as Environment };
    const now = Date.now();
    const widest = Math.max(...daysBack);
    const amounts = store.sqlite
      .query<{ amount: number }, [string, number, number]>(
        `SELECT amount FROM events WHERE tenant_id = ? AND environment = 'live' AND match_status IN ('unmatched', 'ambiguous')
           AND occurred_at >= ? GROUP BY amount ORDER BY count(*) DESC LIMIT ?`,
      )
      .all(scope.tenantId, now - widest * DAY, daysBack.length)
      .map((r) => r.amount);
    const count = (amount: number, from: number, status: string) =>
      store.sqlite
        .query<{ n: number }, [string, number, number, string]>(
          `SELECT count(*) AS n FROM events WHERE tenant_id = ? AND environment = 'live' AND amount = ? AND occurred_at >= ? AND match_status = ?`,
        )
        .get(scope.tenantId, amount, from, status)!.n;
    return daysBack.map((days, i) => {
      const amount = amounts[i]!;
      const createdAt = now - days * DAY;
      const from = createdAt - 120_000;
      const unmatchedBefore = count(amount, from, "unmatched");
      const waiting = unmatchedBefore + count(amount, from, "ambiguous");
      const t0 = performance.now();
      store.db.transaction((tx) => syncOrders(tx, scope, [{ id: `BACKLOG-${days}d`, amount, currency: "PEN", created_at: createdAt, expires_at: now + DAY }], now));
      const ms = performance.now() - t0;
      return { daysBack: days, waiting, ms, nowAmbiguous: unmatchedBefore - count(amount, from, "unmatched") };
    });
  } finally {
    store.close();
  }
}
