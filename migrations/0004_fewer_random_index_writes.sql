DROP INDEX `events_tenant_event_idx`;--> statement-breakpoint
DROP INDEX `events_dup_amount_idx`;--> statement-breakpoint
DROP INDEX `events_waiting_amount_idx`;--> statement-breakpoint
DROP INDEX `events_dup_reference_idx`;--> statement-breakpoint
CREATE INDEX `events_amount_time_idx` ON `events` (`tenant_id`,`environment`,`amount`,`occurred_at`,`match_status`,`source`);--> statement-breakpoint
CREATE INDEX `events_dup_reference_idx` ON `events` (`tenant_id`,`environment`,`source`,`reference`) WHERE reference IS NOT NULL;--> statement-breakpoint
DROP INDEX `orders_candidates_idx`;--> statement-breakpoint
DROP INDEX `orders_expiry_idx`;--> statement-breakpoint
CREATE INDEX `orders_pending_amount_idx` ON `orders` (`tenant_id`,`environment`,`expected_amount`) WHERE status = 'pending';--> statement-breakpoint
CREATE INDEX `orders_pending_expiry_idx` ON `orders` (`expires_at`) WHERE status = 'pending';