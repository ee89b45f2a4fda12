CREATE TABLE `users` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`email` text NOT NULL,
	`password_hash` text NOT NULL,
	`permissions` text DEFAULT '{}' NOT NULL,
	`is_owner` integer DEFAULT false NOT NULL,
	`session_epoch` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `users_email_unique` ON `users` (`email`);--> statement-breakpoint
CREATE TABLE `settings` (
	`key` text PRIMARY KEY NOT NULL,
	`value` text NOT NULL,
	`encrypted` integer DEFAULT false NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `campaign_landings` (
	`campaign_id` integer NOT NULL,
	`landing_id` integer NOT NULL,
	`weight` integer DEFAULT 100 NOT NULL,
	PRIMARY KEY(`campaign_id`, `landing_id`),
	FOREIGN KEY (`campaign_id`) REFERENCES `campaigns`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`landing_id`) REFERENCES `landings`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `campaign_landings_landing_idx` ON `campaign_landings` (`landing_id`);--> statement-breakpoint
CREATE TABLE `campaign_offers` (
	`campaign_id` integer NOT NULL,
	`offer_id` integer NOT NULL,
	`weight` integer DEFAULT 100 NOT NULL,
	PRIMARY KEY(`campaign_id`, `offer_id`),
	FOREIGN KEY (`campaign_id`) REFERENCES `campaigns`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`offer_id`) REFERENCES `offers`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `campaign_offers_offer_idx` ON `campaign_offers` (`offer_id`);--> statement-breakpoint
CREATE TABLE `campaigns` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`slug` text NOT NULL,
	`source_id` integer,
	`external_id` text,
	`active` integer DEFAULT true NOT NULL,
	`bot_url` text,
	`cost_model` text DEFAULT 'none' NOT NULL,
	`cpc` real DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`source_id`) REFERENCES `sources`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `campaigns_slug_unique` ON `campaigns` (`slug`);--> statement-breakpoint
CREATE INDEX `campaigns_source_idx` ON `campaigns` (`source_id`);--> statement-breakpoint
CREATE TABLE `landings` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`slug` text NOT NULL,
	`url` text,
	`html` text,
	`email_list_id` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `landings_slug_unique` ON `landings` (`slug`);--> statement-breakpoint
CREATE TABLE `offers` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`slug` text NOT NULL,
	`url` text NOT NULL,
	`payout` real DEFAULT 0 NOT NULL,
	`currency` text DEFAULT 'USD' NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `offers_slug_unique` ON `offers` (`slug`);--> statement-breakpoint
CREATE TABLE `sources` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`postback_url` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `click_index` (
	`click_row` integer PRIMARY KEY NOT NULL,
	`bucket` integer NOT NULL,
	`click_id` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `click_index_lookup_idx` ON `click_index` (`bucket`,`click_id`);--> statement-breakpoint
CREATE TABLE `clicks` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`click_id` text NOT NULL,
	`campaign_id` integer NOT NULL,
	`source_id` integer,
	`offer_id` integer,
	`landing_id` integer,
	`ip` text,
	`user_agent` text,
	`referrer` text,
	`sub1` text,
	`sub2` text,
	`sub3` text,
	`sub4` text,
	`sub5` text,
	`sub6` text,
	`sub7` text,
	`sub8` text,
	`sub9` text,
	`sub10` text,
	`params` text,
	`bot_reason` text,
	`excluded` integer DEFAULT 0 NOT NULL,
	`is_unique` integer DEFAULT 0 NOT NULL,
	`cost` real DEFAULT 0 NOT NULL,
	`device_type` text,
	`os` text,
	`browser` text,
	`referrer_domain` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `clicks_campaign_created_idx` ON `clicks` (`campaign_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `clicks_created_idx` ON `clicks` (`created_at`);--> statement-breakpoint
CREATE TABLE `conversion_types` (
	`slug` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`include_in_conversions` integer NOT NULL,
	`include_in_revenue` integer NOT NULL,
	`send_postback` integer NOT NULL,
	`negative` integer DEFAULT false NOT NULL,
	`builtin` integer DEFAULT false NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `conversions` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`click_row_id` integer NOT NULL,
	`click_id` text NOT NULL,
	`campaign_id` integer NOT NULL,
	`source_id` integer,
	`offer_id` integer,
	`landing_id` integer,
	`type` text NOT NULL,
	`status` text,
	`revenue` real NOT NULL,
	`currency` text,
	`transaction_id` text,
	`email` text,
	`date` integer NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `conversions_click_tid_idx` ON `conversions` (`click_row_id`,`transaction_id`);--> statement-breakpoint
CREATE INDEX `conversions_click_id_idx` ON `conversions` (`click_id`);--> statement-breakpoint
CREATE INDEX `conversions_campaign_date_idx` ON `conversions` (`campaign_id`,`date`);--> statement-breakpoint
CREATE INDEX `conversions_date_idx` ON `conversions` (`date`);--> statement-breakpoint
CREATE TABLE `postback_errors` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`reason` text NOT NULL,
	`click_id` text,
	`query` text NOT NULL,
	`ip` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `postback_errors_created_idx` ON `postback_errors` (`created_at`);--> statement-breakpoint
CREATE TABLE `status_map` (
	`status` text PRIMARY KEY NOT NULL,
	`type_slug` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `jobs` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`kind` text NOT NULL,
	`payload` text NOT NULL,
	`status` text DEFAULT 'pending' NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`max_attempts` integer NOT NULL,
	`last_error` text,
	`result` text,
	`next_run_at` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `jobs_due_idx` ON `jobs` (`status`,`next_run_at`);--> statement-breakpoint
CREATE TABLE `click_stats_hourly` (
	`hour` integer NOT NULL,
	`campaign_id` integer NOT NULL,
	`source_id` integer NOT NULL,
	`offer_id` integer NOT NULL,
	`landing_id` integer NOT NULL,
	`clicks` integer DEFAULT 0 NOT NULL,
	`unique_clicks` integer DEFAULT 0 NOT NULL,
	`bot_clicks` integer DEFAULT 0 NOT NULL,
	`cost` real DEFAULT 0 NOT NULL,
	`landing_views` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`hour`, `campaign_id`, `source_id`, `offer_id`, `landing_id`)
);
--> statement-breakpoint
CREATE TABLE `conversion_stats_hourly` (
	`hour` integer NOT NULL,
	`campaign_id` integer NOT NULL,
	`source_id` integer NOT NULL,
	`offer_id` integer NOT NULL,
	`landing_id` integer NOT NULL,
	`type` text NOT NULL,
	`conversions` integer DEFAULT 0 NOT NULL,
	`revenue` real DEFAULT 0 NOT NULL,
	PRIMARY KEY(`hour`, `campaign_id`, `source_id`, `offer_id`, `landing_id`, `type`)
);
