CREATE TABLE `console_links` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`token_hash` text NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`used_at` integer,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `console_links_token_uq` ON `console_links` (`token_hash`);--> statement-breakpoint
CREATE TABLE `console_sessions` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`token_hash` text NOT NULL,
	`environment` text DEFAULT 'live' NOT NULL,
	`user_agent` text,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`revoked_at` integer,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `console_sessions_token_uq` ON `console_sessions` (`token_hash`);--> statement-breakpoint
CREATE INDEX `console_sessions_tenant_idx` ON `console_sessions` (`tenant_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `events_source_idx` ON `events` (`tenant_id`,`environment`,`source`,`match_status`,`seq`);