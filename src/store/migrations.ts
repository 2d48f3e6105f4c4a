// Migrations are embedded in the binary: a compiled executable has no migrations/ folder on disk
// (stack notes). A new file from `bun run db:generate` must be added to EMBEDDED below;
// test/store-migrations.test.ts fails when this list and the journal disagree.
import { sha256Hex } from "../ids";
import journal from "../../migrations/meta/_journal.json";
import m0000 from "../../migrations/0000_appliance.sql" with { type: "text" };
import m0001 from "../../migrations/0001_device_surface.sql" with { type: "text" };
import m0002 from "../../migrations/0002_connector_surface.sql" with { type: "text" };
import m0003 from "../../migrations/0003_waiting_payments_by_time.sql" with { type: "text" };
import m0004 from "../../migrations/0004_fewer_random_index_writes.sql" with { type: "text" };
import m0005 from "../../migrations/0005_covering_order_candidates.sql" with { type: "text" };
import m0006 from "../../migrations/0006_duplicates_by_payer_in_index.sql" with { type: "text" };
import m0007 from "../../migrations/0007_events_by_hour.sql" with { type: "text" };
import m0008 from "../../migrations/0008_recent_events.sql" with { type: "text" };
import m0009 from "../../migrations/0009_box_settings.sql" with { type: "text" };
import m0010 from "../../migrations/0010_webhooks.sql" with { type: "text" };
import m0011 from "../../migrations/0011_notifications.sql" with { type: "text" };
import m0012 from "../../migrations/0012_console.sql" with { type: "text" };
import m0013 from "../../migrations/0013_order_lists.sql" with { type: "text" };

export const EMBEDDED: Record<string, string> = {
  "0000_appliance": m0000,
  "0001_device_surface": m0001,
  "0002_connector_surface": m0002,
  "0003_waiting_payments_by_time": m0003,
  "0004_fewer_random_index_writes": m0004,
  "0005_covering_order_candidates": m0005,
  "0006_duplicates_by_payer_in_index": m0006,
  "0007_events_by_hour": m0007,
  "0008_recent_events": m0008,
  "0009_box_settings": m0009,
  "0010_webhooks": m0010,
  "0011_notifications": m0011,
  "0012_console": m0012,
  "0013_order_lists": m0013,
};

export interface MigrationMeta {
  tag: string;
  sql: string[];
  bps: boolean;
  folderMillis: number;
  hash: string;
}

/** The same records drizzle's readMigrationFiles() builds from disk, built from embedded text. */
export function embeddedMigrations(): MigrationMeta[] {
  return journal.entries.map((entry) => {
    const query = EMBEDDED[entry.tag];
    if (query === undefined) throw new Error(`migration ${entry.tag} is in the journal but not embedded`);
    return {
      tag: entry.tag,
      sql: query.split("--> statement-breakpoint"),
      bps: entry.breakpoints,
      folderMillis: entry.when,
      hash: sha256Hex(query),
    };
  });
}

export const journalTags = (): string[] => journal.entries.map((e) => e.tag);
