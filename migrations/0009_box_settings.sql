CREATE TABLE `box_settings` (
	`key` text PRIMARY KEY NOT NULL,
	`value` text NOT NULL
);
--> statement-breakpoint
-- Hand-written: the box's cursor key, 32 random bytes as hex, made once (contract §20).
INSERT INTO `box_settings` (`key`, `value`) VALUES ('cursor_key', lower(hex(randomblob(32))));
