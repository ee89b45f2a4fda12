CREATE TABLE `auto_weight_configs` (
	`campaign_id` integer NOT NULL,
	`path_id` integer DEFAULT 0 NOT NULL,
	`kind` text NOT NULL,
	`enabled` integer DEFAULT false NOT NULL,
	`metric` text DEFAULT 'cr' NOT NULL,
	`floor_pct` real DEFAULT 5 NOT NULL,
	`min_clicks` integer DEFAULT 100 NOT NULL,
	`window_hours` integer DEFAULT 168 NOT NULL,
	`refresh_minutes` integer DEFAULT 60 NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	`updated_by` text NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`campaign_id`, `path_id`, `kind`),
	FOREIGN KEY (`campaign_id`) REFERENCES `campaigns`(`id`) ON UPDATE no action ON DELETE cascade
);

--> statement-breakpoint
CREATE TABLE `weight_changes` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`campaign_id` integer NOT NULL,
	`path_id` integer,
	`kind` text NOT NULL,
	`at` integer NOT NULL,
	`actor` text NOT NULL,
	`before` text NOT NULL,
	`after` text NOT NULL,
	`reason` text NOT NULL,
	FOREIGN KEY (`campaign_id`) REFERENCES `campaigns`(`id`) ON UPDATE no action ON DELETE cascade
);

--> statement-breakpoint
CREATE INDEX `weight_changes_campaign_at_idx` ON `weight_changes` (`campaign_id`,`at`);
--> statement-breakpoint
ALTER TABLE `campaign_landings` ADD `auto_weight` integer;
--> statement-breakpoint
ALTER TABLE `campaign_offers` ADD `auto_weight` integer;
--> statement-breakpoint
ALTER TABLE `path_landings` ADD `auto_weight` integer;
--> statement-breakpoint
ALTER TABLE `path_offers` ADD `auto_weight` integer;
