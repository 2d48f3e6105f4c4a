CREATE TABLE `notifications` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`event_id` text NOT NULL,
	`device_id` text NOT NULL,
	`tenant_id` text NOT NULL,
	`environment` text NOT NULL,
	`package` text NOT NULL,
	`title` text,
	`text` text,
	`status` text NOT NULL,
	`format` text,
	`occurred_at` integer NOT NULL,
	`received_at` integer NOT NULL,
	`body_hash` text NOT NULL,
	`response_status` integer NOT NULL,
	`response_body` text NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `notifications_device_event_uq` ON `notifications` (`device_id`,`event_id`);--> statement-breakpoint
CREATE INDEX `notifications_status_idx` ON `notifications` (`tenant_id`,`environment`,`status`,`seq`);--> statement-breakpoint
CREATE INDEX `notifications_received_idx` ON `notifications` (`tenant_id`,`environment`,`received_at`,`device_id`,`status`);--> statement-breakpoint
CREATE INDEX `notifications_unrecognized_idx` ON `notifications` (`seq`) WHERE status = 'unrecognized';