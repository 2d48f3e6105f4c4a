// Read-only views of the connector (contract §12): the reconciliation view of payment events and
// the shop's phones.
import type { Database } from "bun:sqlite";
import { and, asc, eq, gt, sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/bun-sqlite";
import type { Scope } from "../matching/service";
import type { EventRow } from "../matching/store";
import { perConnection } from "../store/db";
import type { Store } from "../store/db";
import * as schema from "../store/schema";
import { pageByStatus } from "./cursor";
import { MATCH_STATUSES } from "./model";
import { deviceView, eventView } from "./views";
import { NO_NOTIFICATIONS, notificationCounts } from "../notifications/views";

const { events, devices } = schema;
const p = sql.placeholder;

export type MatchStatus = (typeof MATCH_STATUSES)[number];
const ALL_STATUSES: readonly MatchStatus[] = MATCH_STATUSES;


function prepareAll(client: Database) {
  const db = drizzle(client, { schema });
  return {
    /** events_status_idx: (tenant, environment, match_status, seq). */
    eventsByStatus: db
      .select()
      .from(events)
      .where(
        and(
          eq(events.tenantId, p("tenantId")),
          eq(events.environment, p("environment")),
          eq(events.matchStatus, p("status")),
          gt(events.seq, p("after")),
        ),
      )
      .orderBy(asc(events.seq))
      .limit(p("limit"))
      .prepare(),
    devices: db
      .select()
      .from(devices)
      .where(and(eq(devices.tenantId, p("tenantId")), eq(devices.environment, p("environment"))))
      .orderBy(asc(devices.createdAt), asc(devices.id))
      .prepare(),
  };
}

/** Prepared once per connection (exported for the query-plan tests). */
export const viewStatements = perConnection(prepareAll);

/**
 * contract §12: events in commit order (their seq), optionally of one status. Without a status the
 * page is merged from one index range per status, so it never scans other tenants' events.
 */
export function listEvents(store: Store, scope: Scope, status: MatchStatus | undefined, after: string | undefined, limit: number) {
  const s = viewStatements(store.db);
  return pageByStatus(
    store,
    "event",
    scope,
    status ? [status] : ALL_STATUSES,
    { after, limit },
    (st, from, take): EventRow[] => s.eventsByStatus.all({ ...scope, status: st, after: from, limit: take }),
    eventView,
  );
}

/** contract §12: the tenant's phones in this environment, with liveness from signed heartbeats. */
export function listDevices(store: Store, scope: Scope, now: number) {
  return store.db.transaction(() => {
    const counts = notificationCounts(store.db, scope, now);
    return {
      data: viewStatements(store.db)
        .devices.all({ ...scope })
        .map((d) => deviceView(d, now, counts.get(d.id) ?? NO_NOTIFICATIONS)),
    };
  });
}
