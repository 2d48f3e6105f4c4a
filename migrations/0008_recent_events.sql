DROP INDEX `events_device_event_uq`;--> statement-breakpoint
DROP INDEX `events_dup_reference_idx`;--> statement-breakpoint
ALTER TABLE `events` ADD `recent` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX `events_recent_device_event_uq` ON `events` (`device_id`,`event_id`) WHERE recent = 1;--> statement-breakpoint
CREATE INDEX `events_recent_dup_reference_idx` ON `events` (`tenant_id`,`environment`,`source`,`reference`) WHERE reference IS NOT NULL AND recent = 1;--> statement-breakpoint
CREATE INDEX `events_recent_seq_idx` ON `events` (`seq`) WHERE recent = 1;--> statement-breakpoint
CREATE UNIQUE INDEX `events_device_event_uq` ON `events` (`device_id`,`event_id`) WHERE recent = 0;--> statement-breakpoint
CREATE INDEX `events_dup_reference_idx` ON `events` (`tenant_id`,`environment`,`source`,`reference`) WHERE reference IS NOT NULL AND recent = 0;--> statement-breakpoint
-- Hand-written (drizzle-kit has no triggers): one event per (device_id, event_id) across both
-- partitions. Each unique index covers one; these refuse an insert whose key is in the other.
CREATE TRIGGER `events_device_event_one_recent` BEFORE INSERT ON `events`
  WHEN NEW.device_id IS NOT NULL AND NEW.recent = 1
    AND EXISTS (SELECT 1 FROM `events` WHERE device_id = NEW.device_id AND event_id = NEW.event_id AND recent = 0)
BEGIN SELECT RAISE(ABORT, 'UNIQUE constraint failed: events.device_id, events.event_id'); END;--> statement-breakpoint
CREATE TRIGGER `events_device_event_one_old` BEFORE INSERT ON `events`
  WHEN NEW.device_id IS NOT NULL AND NEW.recent = 0
    AND EXISTS (SELECT 1 FROM `events` WHERE device_id = NEW.device_id AND event_id = NEW.event_id AND recent = 1)
BEGIN SELECT RAISE(ABORT, 'UNIQUE constraint failed: events.device_id, events.event_id'); END;
--> statement-breakpoint
-- Nothing changes these columns today; if anything ever did, the same rule would hold.
CREATE TRIGGER `events_device_event_one_update` BEFORE UPDATE OF device_id, event_id ON `events`
  WHEN NEW.device_id IS NOT NULL
    AND (EXISTS (SELECT 1 FROM `events` WHERE device_id = NEW.device_id AND event_id = NEW.event_id AND recent = 0 AND seq <> NEW.seq)
      OR EXISTS (SELECT 1 FROM `events` WHERE device_id = NEW.device_id AND event_id = NEW.event_id AND recent = 1 AND seq <> NEW.seq))
BEGIN SELECT RAISE(ABORT, 'UNIQUE constraint failed: events.device_id, events.event_id'); END;
