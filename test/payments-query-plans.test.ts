// Event ingestion's statements read indexes, never scan (EXPLAIN QUERY PLAN), and the indexes on
// events are only the ones these and the connector's statements use: every index is written on
// every stored event, so one that serves no query is pure cost.
import { afterAll, expect, test } from "bun:test";
import { INGEST_SQL } from "../src/payments/store-event";
import { makeTestApp } from "./support/harness";

const t = await makeTestApp();
afterAll(() => t.close());

const plan = (sqlText: string) => {
  const marks = sqlText.match(/\?\d*/g) ?? [];
  const params = (/\?\d/.test(sqlText) ? [...new Set(marks)] : marks).map(() => 1); // ?1 may appear twice
  return t.store.sqlite
    .query<{ detail: string }, any[]>(`EXPLAIN QUERY PLAN ${sqlText}`)
    .all(...params)
    .map((r) => r.detail)
    .join("\n");
};

/** Both partitions of a lookup by a random key (schema.ts, `recent`): the recent index, then the old one. */
const bothPartitions = (recentIdx: string, oldIdx: string, keys: string) =>
  new RegExp(
    // A merge when the union is ordered (by seq), else one part after the other.
    `(COMPOUND QUERY\\nLEFT-MOST SUBQUERY|MERGE \\(UNION ALL\\)\\nLEFT)\\nSEARCH events USING INDEX ${recentIdx} \\(${keys}\\)\\n(UNION ALL|RIGHT)\\nSEARCH events USING INDEX ${oldIdx} \\(${keys}\\)`,
  );

const s = INGEST_SQL;
const cases: [string, string, RegExp][] = [
  ["replay of a phone's event", s.findByDevice, bothPartitions("events_recent_device_event_uq", "events_device_event_uq", "device_id=\\? AND event_id=\\?")],
  ["replay of a test payment (no phone)", s.findWithoutDevice, bothPartitions("events_recent_device_event_uq", "events_device_event_uq", "device_id=\\? AND event_id=\\?")],
  ["replay of a notification that is no event (contract §16)", s.findNotification, /^SEARCH notifications USING INDEX notifications_device_event_uq \(device_id=\? AND event_id=\?\)$/],
  ["duplicates by reference", s.dupByReference, bothPartitions("events_recent_dup_reference_idx", "events_dup_reference_idx", "tenant_id=\\? AND environment=\\? AND source=\\? AND reference=\\?")],
  ["duplicates by details", s.dupByDetails, /^SEARCH events USING INDEX events_hour_amount_idx \(tenant_id=\? AND environment=\? AND <expr>=\? AND amount=\? AND occurred_at>\? AND occurred_at<\?\)$/],
];
test.each(cases)("%s", (_n, stmt, expected) => {
  const text = plan(stmt);
  expect(text).toMatch(expected);
  expect(text).not.toMatch(/\bSCAN\b/);
  expect(text).not.toMatch(/TEMP B-TREE/);
});

test("the indexes on events are exactly the ones the statements above and the connector's use", () => {
  const names = t.store.sqlite
    .query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'events' AND sql IS NOT NULL ORDER BY name")
    .all()
    .map((r) => r.name);
  // events_status_idx: the reconciliation view (connector-query-plans.test.ts); the others above and
  // in matching-service.test.ts (waiting payments: events_hour_amount_idx).
  // events_recent_seq_idx: the mover's queue (recent-events.test.ts).
  // events_source_idx: the console's payments of one wallet (contract §18, migration 0012).
  expect(names).toEqual([
    "events_device_event_uq",
    "events_dup_reference_idx",
    "events_hour_amount_idx",
    "events_recent_device_event_uq",
    "events_recent_dup_reference_idx",
    "events_recent_seq_idx",
    "events_source_idx",
    "events_status_idx",
  ]);
});

test("events without a reference are not in the reference indexes (they are partial)", () => {
  const sqlOf = (name: string) => t.store.sqlite.query<{ sql: string }, [string]>("SELECT sql FROM sqlite_master WHERE name = ?").get(name)!.sql;
  expect(sqlOf("events_dup_reference_idx")).toMatch(/WHERE reference IS NOT NULL AND recent = 0$/);
  expect(sqlOf("events_recent_dup_reference_idx")).toMatch(/WHERE reference IS NOT NULL AND recent = 1$/);
});
