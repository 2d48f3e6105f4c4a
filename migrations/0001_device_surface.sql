CREATE TABLE `activation_codes` (
	`id` text PRIMARY KEY NOT NULL,
	`code_hash` text NOT NULL,
	`tenant_id` text NOT NULL,
	`environment` text NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`used_at` integer,
	`device_id` text,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `activation_codes_hash_uq` ON `activation_codes` (`code_hash`);--> statement-breakpoint
CREATE TABLE `devices` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`environment` text NOT NULL,
	`label` text NOT NULL,
	`platform` text NOT NULL,
	`app_version` text NOT NULL,
	`os_version` text NOT NULL,
	`secret_enc` text NOT NULL,
	`status` text DEFAULT 'active' NOT NULL,
	`created_at` integer NOT NULL,
	`revoked_at` integer,
	`last_heartbeat_at` integer,
	`last_seen_at` integer,
	`health` text,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `devices_tenant_idx` ON `devices` (`tenant_id`,`environment`);--> statement-breakpoint
CREATE TABLE `events` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`event_id` text NOT NULL,
	`device_id` text,
	`tenant_id` text NOT NULL,
	`environment` text NOT NULL,
	`kind` text NOT NULL,
	`source` text NOT NULL,
	`amount` integer NOT NULL,
	`currency` text NOT NULL,
	`payer_name` text,
	`security_code` text,
	`reference` text,
	`occurred_at` integer NOT NULL,
	`received_at` integer NOT NULL,
	`raw` text,
	`body_hash` text NOT NULL,
	`response_status` integer NOT NULL,
	`response_body` text NOT NULL,
	`match_status` text NOT NULL,
	`order_id` text,
	`duplicate_of` text,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `events_device_event_uq` ON `events` (`device_id`,`event_id`);--> statement-breakpoint
CREATE INDEX `events_tenant_event_idx` ON `events` (`tenant_id`,`environment`,`event_id`);--> statement-breakpoint
CREATE INDEX `events_dup_reference_idx` ON `events` (`tenant_id`,`environment`,`source`,`reference`);--> statement-breakpoint
CREATE INDEX `events_dup_amount_idx` ON `events` (`tenant_id`,`environment`,`source`,`amount`,`occurred_at`);--> statement-breakpoint
CREATE INDEX `events_status_idx` ON `events` (`tenant_id`,`environment`,`match_status`,`seq`);--> statement-breakpoint
CREATE INDEX `events_waiting_amount_idx` ON `events` (`tenant_id`,`environment`,`match_status`,`amount`);