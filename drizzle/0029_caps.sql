CREATE TABLE `cap_counters` (
	`cap` text NOT NULL,
	`period` text NOT NULL,
	`clicks` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`cap`, `period`)
);
--> statement-breakpoint
ALTER TABLE `offers` ADD `cap` text;
--> statement-breakpoint
ALTER TABLE `campaign_offers` ADD `cap` text;
--> statement-breakpoint
ALTER TABLE `path_offers` ADD `cap` text;
