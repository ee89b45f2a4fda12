CREATE TABLE `campaign_paths` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`campaign_id` integer NOT NULL,
	`position` integer DEFAULT 0 NOT NULL,
	`name` text NOT NULL,
	`active` integer DEFAULT true NOT NULL,
	`rule_set_id` integer,
	`conditions` text DEFAULT '[]' NOT NULL,
	`action` text NOT NULL,
	`url` text,
	FOREIGN KEY (`campaign_id`) REFERENCES `campaigns`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`rule_set_id`) REFERENCES `rule_sets`(`id`) ON UPDATE no action ON DELETE no action
);

--> statement-breakpoint
CREATE INDEX `campaign_paths_campaign_idx` ON `campaign_paths` (`campaign_id`);
--> statement-breakpoint
CREATE INDEX `campaign_paths_rule_set_idx` ON `campaign_paths` (`rule_set_id`);
--> statement-breakpoint
CREATE TABLE `path_landings` (
	`path_id` integer NOT NULL,
	`landing_id` integer NOT NULL,
	`weight` integer DEFAULT 100 NOT NULL,
	`position` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`path_id`, `landing_id`),
	FOREIGN KEY (`path_id`) REFERENCES `campaign_paths`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`landing_id`) REFERENCES `landings`(`id`) ON UPDATE no action ON DELETE no action
);

--> statement-breakpoint
CREATE INDEX `path_landings_landing_idx` ON `path_landings` (`landing_id`);
--> statement-breakpoint
CREATE TABLE `path_offers` (
	`path_id` integer NOT NULL,
	`offer_id` integer NOT NULL,
	`weight` integer DEFAULT 100 NOT NULL,
	`position` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`path_id`, `offer_id`),
	FOREIGN KEY (`path_id`) REFERENCES `campaign_paths`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`offer_id`) REFERENCES `offers`(`id`) ON UPDATE no action ON DELETE no action
);

--> statement-breakpoint
CREATE INDEX `path_offers_offer_idx` ON `path_offers` (`offer_id`);
--> statement-breakpoint
CREATE TABLE `rule_sets` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`conditions` text DEFAULT '[]' NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);

--> statement-breakpoint
ALTER TABLE `clicks` ADD `path_id` integer;
