DROP INDEX `events_amount_time_idx`;--> statement-breakpoint
CREATE INDEX `events_amount_time_idx` ON `events` (`tenant_id`,`environment`,`amount`,`occurred_at`,`match_status`,`source`,`payer_name`);