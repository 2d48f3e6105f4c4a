// The connector's hot queries read indexes, never scan (checked with EXPLAIN QUERY PLAN).
import { afterAll, expect, test } from "bun:test";
import { feedStatements } from "../src/connector/matches.service";
import { orderStatements } from "../src/connector/orders.service";
import { viewStatements } from "../src/connector/views.service";
import { MATCHING_SQL } from "../src/matching/store";
import { UNRECOGNIZED_AFTER_SQL } from "../src/notifications/store";
import { NOTIFICATION_VIEW_SQL } from "../src/notifications/views";
import { makeTestApp } from "./support/harness";

const t = await makeTestApp();
afterAll(() => t.close());

const plan = (q: { sql: string; params: unknown[] }) => {
  const stmt = t.store.sqlite.prepare(`EXPLAIN QUERY PLAN ${q.sql}`);
  const text = (stmt.all(...(q.params.map(() => 1) as never[])) as { detail: string }[]).map((r) => r.detail).join("\n");
  stmt.finalize();
  return text;
};

const o = orderStatements(t.store.db);
const f = feedStatements(t.store.db);
const v = viewStatements(t.store.db);
const cases: [string, { getQuery(): { sql: string; params: unknown[] } }, RegExp][] = [
  ["amounts held for unique amounts", o.heldAmounts, /SEARCH orders USING COVERING INDEX orders_pending_candidates_idx \(tenant_id=\? AND environment=\? AND expected_amount>\? AND expected_amount<\?\)/],
  ["match by id", o.matchById, /SEARCH matches USING INDEX matches_id_uq/],
  ["feed page", f.page, /SEARCH matches USING INDEX matches_feed_idx \(tenant_id=\? AND environment=\? AND seq>\?\)/],
  ["feed acknowledgement", f.acked, /sqlite_autoindex_feed_acks_1/],
  ["newest match", f.lastSeq, /SEARCH matches/],
  ["match of an order", f.matchByOrder, /matches_order_uq/],
  ["match of an event", f.matchByEventSeq, /matches_event_uq/],
  // In each partition, one unique lookup per phone of the scope and one for test payments; never a
  // range over the shop's events.
  ["event by id from a phone, recent partition", f.eventsByIdRecent.phones, /^SEARCH events USING INDEX events_recent_device_event_uq \(device_id=\? AND event_id=\?\)\nLIST SUBQUERY 1\nSEARCH devices USING INDEX devices_tenant_idx \(tenant_id=\? AND environment=\?\)$/],
  ["event by id from a phone, old partition", f.eventsByIdOld.phones, /^SEARCH events USING INDEX events_device_event_uq \(device_id=\? AND event_id=\?\)\nLIST SUBQUERY 1\nSEARCH devices USING INDEX devices_tenant_idx \(tenant_id=\? AND environment=\?\)$/],
  ["test payment by id, recent partition", f.eventsByIdRecent.testPayments, /^SEARCH events USING INDEX events_recent_device_event_uq \(device_id=\? AND event_id=\?\)$/],
  ["test payment by id, old partition", f.eventsByIdOld.testPayments, /^SEARCH events USING INDEX events_device_event_uq \(device_id=\? AND event_id=\?\)$/],
  ["events view by status", v.eventsByStatus, /SEARCH events USING INDEX events_status_idx \(tenant_id=\? AND environment=\? AND match_status=\? AND seq>\?\)/],
  // contract §19: the orders list, one stored status per range, walked backwards from the cursor
  // in the index's order (no sort); and the expired orders that could hold a payment, in the index alone.
  ["orders list by stored status", o.listByStatus, /^SEARCH orders USING INDEX orders_list_idx \(tenant_id=\? AND environment=\? AND status=\? AND \(created_at,id\)<\(\?,\?\)\)$/],
  ["expired orders around a payment", v.expiredAround, /^SEARCH orders USING COVERING INDEX orders_expired_idx \(tenant_id=\? AND environment=\? AND expires_at>\?\)$/],
];
test.each(cases)("%s", (_n, stmt, expected) => {
  const text = plan(stmt.getQuery());
  expect(text).toMatch(expected);
  expect(text).not.toMatch(/\bSCAN\b/);
  expect(text).not.toMatch(/TEMP B-TREE/);
});

test("orders that read expired but are stored pending: the sweep's backlog (orders_pending_expiry_idx, expires_at < now), sorted, never the shop's pending orders", () => {
  // The range is what serve's sweep has not yet recorded (it empties it every tick), so sorting it is cheap.
  expect(plan(o.listPastExpiry.getQuery())).toMatch(/^SEARCH orders USING INDEX orders_pending_expiry_idx \(expires_at<\?\)\nUSE TEMP B-TREE FOR ORDER BY$/);
});

test("pending orders around a payment: the candidates' covering index, as for matching", () => {
  expect(plan({ sql: MATCHING_SQL.candidateOrders.replace(/\$\w+/g, "?"), params: MATCHING_SQL.candidateOrders.match(/\$\w+/g)! })).toMatch(
    /^SEARCH orders USING COVERING INDEX orders_pending_candidates_idx \(tenant_id=\? AND environment=\? AND expected_amount=\? AND expires_at>\?\)$/,
  );
});

test("devices: by tenant and environment (a shop has a handful, sorting them is fine)", () => {
  const text = plan(v.devices.getQuery());
  expect(text).toMatch(/SEARCH devices USING INDEX devices_tenant_idx/);
  expect(text).not.toMatch(/\bSCAN\b/);
});

// contract §16: the notifications list (one status range per query), the per-phone counts of the
// last 7 days (the index alone) and the read-again queue (the partial index of unrecognised ones).
test.each([
  ["notifications of a status", NOTIFICATION_VIEW_SQL.byStatus, /^SEARCH notifications USING INDEX notifications_status_idx \(tenant_id=\? AND environment=\? AND status=\? AND seq>\?\)$/],
  ["notification counts per phone", NOTIFICATION_VIEW_SQL.counts, /^SEARCH notifications USING COVERING INDEX notifications_received_idx \(tenant_id=\? AND environment=\? AND received_at>\?\)\nUSE TEMP B-TREE FOR GROUP BY$/],
  ["one phone's notification counts", NOTIFICATION_VIEW_SQL.countsOfDevice, /^SEARCH notifications USING COVERING INDEX notifications_received_idx \(tenant_id=\? AND environment=\? AND received_at>\?\)(\nUSE TEMP B-TREE FOR GROUP BY)?$/],
  ["the read-again queue", UNRECOGNIZED_AFTER_SQL, /^SEARCH notifications USING INDEX notifications_unrecognized_idx \(seq>\?\)$/],
] as const)("%s", (_name, sql, expected) => {
  expect(plan({ sql, params: sql.match(/\?/g)! })).toMatch(expected);
});

// contract §18: the console's own reads ("Hoy" from the hour index alone; "Pagos" newest first,
// one status range at a time, by wallet from events_source_idx), never a scan or a sort.
import { CONSOLE_SQL, consoleStatements } from "../src/console/queries";
const cs = consoleStatements(t.store.db);
test.each([
  ["console: the newest payments of a status", cs.newestOfStatus, /^SEARCH events USING INDEX events_status_idx \(tenant_id=\? AND environment=\? AND match_status=\? AND seq<\?\)$/],
  ["console: the newest payments of a wallet and status", cs.newestOfWalletStatus, /^SEARCH events USING INDEX events_source_idx \(tenant_id=\? AND environment=\? AND source=\? AND match_status=\? AND seq<\?\)$/],
] as const)("%s", (_n, stmt, expected) => {
  expect(plan(stmt.getQuery())).toMatch(expected);
});
test("console: today's payments by wallet, from the covering hour index", () => {
  const text = plan({ sql: CONSOLE_SQL.todayByWallet, params: [1, 2, 3, 4, 5, 6] });
  expect(text).toMatch(/^SEARCH events USING COVERING INDEX events_hour_amount_idx \(tenant_id=\? AND environment=\? AND <expr>>\? AND <expr><\?\)/);
  expect(text).not.toMatch(/\bSCAN\b/);
});
