CREATE TABLE `landing_assets` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`landing_id` integer NOT NULL,
	`path` text NOT NULL,
	`content_type` text NOT NULL,
	`size` integer NOT NULL,
	`etag` text NOT NULL,
	`body` blob NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`landing_id`) REFERENCES `landings`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `landing_assets_path_idx` ON `landing_assets` (`landing_id`,`path`);--> statement-breakpoint
CREATE TABLE `leads` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`landing_id` integer NOT NULL,
	`campaign_id` integer,
	`click_id` text,
	`email` text NOT NULL,
	`name` text,
	`fields` text DEFAULT '{}' NOT NULL,
	`ip` text,
	`user_agent` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `leads_click_idx` ON `leads` (`click_id`);--> statement-breakpoint
CREATE INDEX `leads_landing_created_idx` ON `leads` (`landing_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `leads_created_idx` ON `leads` (`created_at`);--> statement-breakpoint
CREATE INDEX `leads_email_idx` ON `leads` (`email`);--> statement-breakpoint
CREATE TABLE `visitor_events` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`click_id` text,
	`campaign_id` integer,
	`landing_id` integer,
	`props` text,
	`url` text,
	`ip` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `visitor_events_created_idx` ON `visitor_events` (`created_at`);--> statement-breakpoint
CREATE INDEX `visitor_events_click_idx` ON `visitor_events` (`click_id`);--> statement-breakpoint
CREATE INDEX `visitor_events_landing_created_idx` ON `visitor_events` (`landing_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `visitor_events_campaign_created_idx` ON `visitor_events` (`campaign_id`,`created_at`);--> statement-breakpoint
ALTER TABLE `clicks` ADD `landing_viewed_at` integer;--> statement-breakpoint
ALTER TABLE `clicks` ADD `landing_clicked_at` integer;--> statement-breakpoint
ALTER TABLE `click_stats_daily` ADD `landing_clicks` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `click_stats_hourly` ADD `landing_clicks` integer DEFAULT 0 NOT NULL;
--> statement-breakpoint
-- The daily triggers of 0002 again, now carrying landing_clicks (landing → offer click-throughs).
DROP TRIGGER `click_stats_daily_ins`;--> statement-breakpoint
DROP TRIGGER `click_stats_daily_upd`;--> statement-breakpoint
DROP TRIGGER `click_stats_daily_del`;--> statement-breakpoint
CREATE TRIGGER `click_stats_daily_ins` AFTER INSERT ON `click_stats_hourly` BEGIN
  INSERT INTO `click_stats_daily` (`day`, `campaign_id`, `source_id`, `offer_id`, `landing_id`, `clicks`, `unique_clicks`, `bot_clicks`, `cost`, `landing_views`, `landing_clicks`) VALUES (NEW.hour - NEW.hour % 86400000, NEW.campaign_id, NEW.source_id, NEW.offer_id, NEW.landing_id, NEW.clicks, NEW.unique_clicks, NEW.bot_clicks, NEW.cost, NEW.landing_views, NEW.landing_clicks) ON CONFLICT (`day`, `campaign_id`, `source_id`, `offer_id`, `landing_id`) DO UPDATE SET clicks = clicks + excluded.clicks, unique_clicks = unique_clicks + excluded.unique_clicks, bot_clicks = bot_clicks + excluded.bot_clicks, cost = cost + excluded.cost, landing_views = landing_views + excluded.landing_views, landing_clicks = landing_clicks + excluded.landing_clicks;
END;--> statement-breakpoint
CREATE TRIGGER `click_stats_daily_upd` AFTER UPDATE ON `click_stats_hourly` BEGIN
  INSERT INTO `click_stats_daily` (`day`, `campaign_id`, `source_id`, `offer_id`, `landing_id`, `clicks`, `unique_clicks`, `bot_clicks`, `cost`, `landing_views`, `landing_clicks`) VALUES (OLD.hour - OLD.hour % 86400000, OLD.campaign_id, OLD.source_id, OLD.offer_id, OLD.landing_id, -OLD.clicks, -OLD.unique_clicks, -OLD.bot_clicks, -OLD.cost, -OLD.landing_views, -OLD.landing_clicks) ON CONFLICT (`day`, `campaign_id`, `source_id`, `offer_id`, `landing_id`) DO UPDATE SET clicks = clicks + excluded.clicks, unique_clicks = unique_clicks + excluded.unique_clicks, bot_clicks = bot_clicks + excluded.bot_clicks, cost = cost + excluded.cost, landing_views = landing_views + excluded.landing_views, landing_clicks = landing_clicks + excluded.landing_clicks;
  INSERT INTO `click_stats_daily` (`day`, `campaign_id`, `source_id`, `offer_id`, `landing_id`, `clicks`, `unique_clicks`, `bot_clicks`, `cost`, `landing_views`, `landing_clicks`) VALUES (NEW.hour - NEW.hour % 86400000, NEW.campaign_id, NEW.source_id, NEW.offer_id, NEW.landing_id, NEW.clicks, NEW.unique_clicks, NEW.bot_clicks, NEW.cost, NEW.landing_views, NEW.landing_clicks) ON CONFLICT (`day`, `campaign_id`, `source_id`, `offer_id`, `landing_id`) DO UPDATE SET clicks = clicks + excluded.clicks, unique_clicks = unique_clicks + excluded.unique_clicks, bot_clicks = bot_clicks + excluded.bot_clicks, cost = cost + excluded.cost, landing_views = landing_views + excluded.landing_views, landing_clicks = landing_clicks + excluded.landing_clicks;
END;--> statement-breakpoint
CREATE TRIGGER `click_stats_daily_del` AFTER DELETE ON `click_stats_hourly` BEGIN
  INSERT INTO `click_stats_daily` (`day`, `campaign_id`, `source_id`, `offer_id`, `landing_id`, `clicks`, `unique_clicks`, `bot_clicks`, `cost`, `landing_views`, `landing_clicks`) VALUES (OLD.hour - OLD.hour % 86400000, OLD.campaign_id, OLD.source_id, OLD.offer_id, OLD.landing_id, -OLD.clicks, -OLD.unique_clicks, -OLD.bot_clicks, -OLD.cost, -OLD.landing_views, -OLD.landing_clicks) ON CONFLICT (`day`, `campaign_id`, `source_id`, `offer_id`, `landing_id`) DO UPDATE SET clicks = clicks + excluded.clicks, unique_clicks = unique_clicks + excluded.unique_clicks, bot_clicks = bot_clicks + excluded.bot_clicks, cost = cost + excluded.cost, landing_views = landing_views + excluded.landing_views, landing_clicks = landing_clicks + excluded.landing_clicks;
END;
