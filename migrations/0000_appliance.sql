CREATE TABLE `api_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`environment` text NOT NULL,
	`key_hash` text NOT NULL,
	`prefix` text NOT NULL,
	`last4` text NOT NULL,
	`created_at` integer NOT NULL,
	`revoked_at` integer,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `api_keys_hash_uq` ON `api_keys` (`key_hash`);--> statement-breakpoint
CREATE INDEX `api_keys_tenant_idx` ON `api_keys` (`tenant_id`);--> statement-breakpoint
CREATE TABLE `news` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`id` text NOT NULL,
	`tenant_id` text NOT NULL,
	`level` text NOT NULL,
	`title` text NOT NULL,
	`body` text NOT NULL,
	`published_at` integer NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `news_id_uq` ON `news` (`id`);--> statement-breakpoint
CREATE INDEX `news_tenant_idx` ON `news` (`tenant_id`,`seq`);--> statement-breakpoint
CREATE TABLE `tenants` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`created_at` integer NOT NULL,
	`license_status` text DEFAULT 'active' NOT NULL,
	`license_plan` text DEFAULT 'standard' NOT NULL,
	`license_max_devices` integer DEFAULT 5 NOT NULL,
	`license_expires_at` integer,
	`updated_at` integer NOT NULL
);
