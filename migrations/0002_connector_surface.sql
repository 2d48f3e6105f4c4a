CREATE TABLE `feed_acks` (
	`tenant_id` text NOT NULL,
	`environment` text NOT NULL,
	`through_seq` integer NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`tenant_id`, `environment`),
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `matches` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`id` text NOT NULL,
	`tenant_id` text NOT NULL,
	`environment` text NOT NULL,
	`order_id` text NOT NULL,
	`event_seq` integer NOT NULL,
	`event_id` text NOT NULL,
	`device_id` text,
	`amount` integer NOT NULL,
	`currency` text NOT NULL,
	`source` text NOT NULL,
	`payer_name` text,
	`security_code` text,
	`reference` text,
	`occurred_at` integer NOT NULL,
	`matched_at` integer NOT NULL,
	`method` text NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `matches_id_uq` ON `matches` (`id`);--> statement-breakpoint
CREATE UNIQUE INDEX `matches_order_uq` ON `matches` (`tenant_id`,`environment`,`order_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `matches_event_uq` ON `matches` (`event_seq`);--> statement-breakpoint
CREATE INDEX `matches_feed_idx` ON `matches` (`tenant_id`,`environment`,`seq`);--> statement-breakpoint
CREATE TABLE `orders` (
	`tenant_id` text NOT NULL,
	`environment` text NOT NULL,
	`id` text NOT NULL,
	`amount` integer NOT NULL,
	`expected_amount` integer NOT NULL,
	`currency` text NOT NULL,
	`status` text NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`customer_name` text,
	`security_code` text,
	`unique_amount` integer DEFAULT false NOT NULL,
	`metadata` text,
	`match_id` text,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`tenant_id`, `environment`, `id`),
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `orders_candidates_idx` ON `orders` (`tenant_id`,`environment`,`status`,`expected_amount`);--> statement-breakpoint
CREATE INDEX `orders_expiry_idx` ON `orders` (`status`,`expires_at`);