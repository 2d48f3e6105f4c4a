// What the connector shows of notifications (contract §16): the list, and the per-phone counts that
// GET /connector/v1/devices (and the device webhooks) add to each phone.
import type { Statement } from "bun:sqlite";
import { pageByStatus } from "../connector/cursor";
import { perConnection, type Db, type Store } from "../store/db";
import type { NotificationStatus } from "../store/schema";
import { NOTIFICATION_STATUSES } from "./model";
import type { NotificationRow } from "./store";

interface Scope {
  tenantId: string;
  environment: string;
}

/** contract §16: the counts cover this long, by the box's receipt time (phones' clocks are wrong). */
export const COUNT_WINDOW_MS = 7 * 24 * 3600 * 1000;

type ViewRow = Omit<NotificationRow, "body_hash" | "response_body" | "tenant_id" | "environment">;

/** The statements' text (exported for the query-plan tests, test/connector-query-plans.test.ts). */
export const NOTIFICATION_VIEW_SQL = {
  /** notifications_status_idx: one status's range after a position. */
  byStatus: `SELECT seq, event_id, device_id, package, title, text, status, format, occurred_at, received_at FROM notifications
     WHERE tenant_id = ? AND environment = ? AND status = ? AND seq > ? ORDER BY seq LIMIT ?`,
  /** notifications_received_idx, read from the index alone. */
  counts: `SELECT device_id, status, count(*) AS n, max(received_at) AS last FROM notifications
     WHERE tenant_id = ? AND environment = ? AND received_at >= ? GROUP BY device_id, status`,
  /** The same for one phone (the device webhooks), the phone filtered inside the index. */
  countsOfDevice: `SELECT device_id, status, count(*) AS n, max(received_at) AS last FROM notifications
     WHERE tenant_id = ? AND environment = ? AND received_at >= ? AND device_id = ? GROUP BY device_id, status`,
} as const;

const viewStatements = perConnection((db) => ({
  byStatus: db.prepare(NOTIFICATION_VIEW_SQL.byStatus) as Statement<ViewRow, [string, string, string, number, number]>,
  counts: db.prepare(NOTIFICATION_VIEW_SQL.counts) as Statement<CountRow, [string, string, number]>,
  countsOfDevice: db.prepare(NOTIFICATION_VIEW_SQL.countsOfDevice) as Statement<CountRow, [string, string, number, string]>,
}));

interface CountRow {
  device_id: string;
  status: NotificationStatus;
  n: number;
  last: number;
}

export function notificationView(r: ViewRow) {
  return {
    event_id: r.event_id,
    device_id: r.device_id,
    package: r.package,
    title: r.title,
    text: r.text,
    status: r.status,
    format: r.format,
    occurred_at: r.occurred_at,
    received_at: r.received_at,
  };
}

/**
 * contract §16: notifications in the order they were stored, optionally of one status. Without a
 * status the page is merged from one index range per status (as the events view does).
 */
export function listNotifications(store: Store, scope: Scope, status: NotificationStatus | undefined, after: string | undefined, limit: number) {
  const s = viewStatements(store.db);
  return pageByStatus(
    store,
    "notification",
    scope,
    status ? [status] : NOTIFICATION_STATUSES,
    { after, limit },
    (st, from, take) => s.byStatus.all(scope.tenantId, scope.environment, st, from, take),
    notificationView,
  );
}

export interface NotificationCounts {
  payment: number;
  not_a_payment: number;
  unrecognized: number;
  last_unrecognized_at: number | null;
}

export const NO_NOTIFICATIONS: Readonly<NotificationCounts> = Object.freeze({ payment: 0, not_a_payment: 0, unrecognized: 0, last_unrecognized_at: null });

/** contract §16: each phone's notifications of the last 7 days, by status. Phones without any are absent. */
export function notificationCounts(db: Db, scope: Scope, now: number): Map<string, NotificationCounts> {
  return countsOf(viewStatements(db).counts.all(scope.tenantId, scope.environment, now - COUNT_WINDOW_MS));
}

/** The same for one phone. */
export function deviceNotificationCounts(db: Db, device: Scope & { id: string }, now: number): NotificationCounts {
  const rows = viewStatements(db).countsOfDevice.all(device.tenantId, device.environment, now - COUNT_WINDOW_MS, device.id);
  return countsOf(rows).get(device.id) ?? { ...NO_NOTIFICATIONS };
}

function countsOf(rows: CountRow[]): Map<string, NotificationCounts> {
  const out = new Map<string, NotificationCounts>();
  for (const r of rows) {
    let c = out.get(r.device_id);
    if (!c) out.set(r.device_id, (c = { ...NO_NOTIFICATIONS }));
    c[r.status] = r.n;
    if (r.status === "unrecognized") c.last_unrecognized_at = r.last;
  }
  return out;
}
