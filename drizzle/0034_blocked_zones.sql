-- Blocked zones and saved views (issue 30, docs/zones.md): the dated list of sub values (zones) blocked at each
-- traffic source (one row per source, dimension, value and campaign or none), and each user's named dashboard
-- views (a screen's query string).
CREATE TABLE `blocked_zones` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`source_id` integer NOT NULL,
	`campaign_id` integer,
	`dimension` text NOT NULL,
	`value` text NOT NULL,
	`reason` text,
	`blocked_at` integer NOT NULL,
	`blocked_by` integer,
	FOREIGN KEY (`source_id`) REFERENCES `sources`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`campaign_id`) REFERENCES `campaigns`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`blocked_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);

--> statement-breakpoint
CREATE UNIQUE INDEX `blocked_zones_source_value_idx` ON `blocked_zones` (`source_id`,`dimension`,`value`) WHERE "blocked_zones"."campaign_id" IS NULL;
--> statement-breakpoint
CREATE UNIQUE INDEX `blocked_zones_campaign_value_idx` ON `blocked_zones` (`source_id`,`dimension`,`value`,`campaign_id`) WHERE "blocked_zones"."campaign_id" IS NOT NULL;
--> statement-breakpoint
CREATE INDEX `blocked_zones_source_idx` ON `blocked_zones` (`source_id`,`id`);
--> statement-breakpoint
CREATE TABLE `saved_views` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_id` integer NOT NULL,
	`screen` text NOT NULL,
	`name` text NOT NULL,
	`state` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);

--> statement-breakpoint
CREATE UNIQUE INDEX `saved_views_user_screen_name_idx` ON `saved_views` (`user_id`,`screen`,`name`);
