DROP INDEX `events_waiting_amount_idx`;--> statement-breakpoint
CREATE INDEX `events_waiting_amount_idx` ON `events` (`tenant_id`,`environment`,`match_status`,`amount`,`occurred_at`);