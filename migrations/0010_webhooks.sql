CREATE TABLE `webhook_endpoints` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`environment` text NOT NULL,
	`url` text NOT NULL,
	`events` text NOT NULL,
	`description` text,
	`status` text DEFAULT 'enabled' NOT NULL,
	`disabled_reason` text,
	`secret_enc` text NOT NULL,
	`previous_secret_enc` text,
	`previous_secret_until` integer,
	`failing_since` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`deleted_at` integer,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `webhook_endpoints_scope_idx` ON `webhook_endpoints` (`tenant_id`,`environment`,`status`);--> statement-breakpoint
CREATE TABLE `webhook_messages` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`id` text NOT NULL,
	`endpoint_id` text NOT NULL,
	`tenant_id` text NOT NULL,
	`environment` text NOT NULL,
	`type` text NOT NULL,
	`body` text NOT NULL,
	`status` text DEFAULT 'pending' NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	`next_attempt_at` integer,
	`last_attempt_at` integer,
	`last_response_status` integer,
	`last_error` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `webhook_messages_id_uq` ON `webhook_messages` (`id`);--> statement-breakpoint
CREATE INDEX `webhook_messages_endpoint_idx` ON `webhook_messages` (`endpoint_id`,`status`,`seq`);--> statement-breakpoint
CREATE INDEX `webhook_messages_due_idx` ON `webhook_messages` (`endpoint_id`,`next_attempt_at`) WHERE status = 'pending';--> statement-breakpoint
CREATE INDEX `webhook_messages_created_idx` ON `webhook_messages` (`created_at`);--> statement-breakpoint
ALTER TABLE `devices` ADD `online_reported` integer DEFAULT 0 NOT NULL;