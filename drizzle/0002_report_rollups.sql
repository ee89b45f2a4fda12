CREATE TABLE `click_stats_daily` (
	`day` integer NOT NULL,
	`campaign_id` integer NOT NULL,
	`source_id` integer NOT NULL,
	`offer_id` integer NOT NULL,
	`landing_id` integer NOT NULL,
	`clicks` integer DEFAULT 0 NOT NULL,
	`unique_clicks` integer DEFAULT 0 NOT NULL,
	`bot_clicks` integer DEFAULT 0 NOT NULL,
	`cost` real DEFAULT 0 NOT NULL,
	`landing_views` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`day`, `campaign_id`, `source_id`, `offer_id`, `landing_id`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE TABLE `conversion_stats_daily` (
	`day` integer NOT NULL,
	`campaign_id` integer NOT NULL,
	`source_id` integer NOT NULL,
	`offer_id` integer NOT NULL,
	`landing_id` integer NOT NULL,
	`type` text NOT NULL,
	`conversions` integer DEFAULT 0 NOT NULL,
	`revenue` real DEFAULT 0 NOT NULL,
	`revenue_abs` real DEFAULT 0 NOT NULL,
	PRIMARY KEY(`day`, `campaign_id`, `source_id`, `offer_id`, `landing_id`, `type`)
) WITHOUT ROWID;
--> statement-breakpoint
ALTER TABLE `conversion_stats_hourly` ADD `revenue_abs` real DEFAULT 0 NOT NULL;
--> statement-breakpoint
-- Hand-written below this line (drizzle-kit does not model triggers or data backfills). Also by hand: WITHOUT ROWID
-- on the two daily tables above (a range read is then one sequential walk of the primary key, ~30% faster).
-- conversion_stats_hourly had no writer before this release: rebuild it from the conversions, leaving out
-- conversions of excluded (own-IP) clicks, as the live writer does.
DELETE FROM `conversion_stats_hourly`;
--> statement-breakpoint
INSERT INTO `conversion_stats_hourly` (`hour`, `campaign_id`, `source_id`, `offer_id`, `landing_id`, `type`, `conversions`, `revenue`, `revenue_abs`)
SELECT v.`date` - v.`date` % 3600000, v.`campaign_id`, coalesce(v.`source_id`, 0), coalesce(v.`offer_id`, 0), coalesce(v.`landing_id`, 0), v.`type`, count(*), sum(v.`revenue`), sum(abs(v.`revenue`))
FROM `conversions` v WHERE NOT EXISTS (SELECT 1 FROM `clicks` c WHERE c.`id` = v.`click_row_id` AND c.`excluded` <> 0)
GROUP BY 1, 2, 3, 4, 5, 6;
--> statement-breakpoint
INSERT INTO `click_stats_daily` (`day`, `campaign_id`, `source_id`, `offer_id`, `landing_id`, `clicks`, `unique_clicks`, `bot_clicks`, `cost`, `landing_views`)
SELECT `hour` - `hour` % 86400000, `campaign_id`, `source_id`, `offer_id`, `landing_id`, sum(`clicks`), sum(`unique_clicks`), sum(`bot_clicks`), sum(`cost`), sum(`landing_views`)
FROM `click_stats_hourly` GROUP BY 1, 2, 3, 4, 5;
--> statement-breakpoint
INSERT INTO `conversion_stats_daily` (`day`, `campaign_id`, `source_id`, `offer_id`, `landing_id`, `type`, `conversions`, `revenue`, `revenue_abs`)
SELECT `hour` - `hour` % 86400000, `campaign_id`, `source_id`, `offer_id`, `landing_id`, `type`, sum(`conversions`), sum(`revenue`), sum(`revenue_abs`)
FROM `conversion_stats_hourly` GROUP BY 1, 2, 3, 4, 5, 6;
--> statement-breakpoint
-- Daily rows = sum of their hourly rows, whatever writes the hourly table (indexer, repoints, recorder, a fix-up by hand).
CREATE TRIGGER `click_stats_daily_ins` AFTER INSERT ON `click_stats_hourly` BEGIN
  INSERT INTO `click_stats_daily` (`day`, `campaign_id`, `source_id`, `offer_id`, `landing_id`, `clicks`, `unique_clicks`, `bot_clicks`, `cost`, `landing_views`) VALUES (NEW.hour - NEW.hour % 86400000, NEW.campaign_id, NEW.source_id, NEW.offer_id, NEW.landing_id, NEW.clicks, NEW.unique_clicks, NEW.bot_clicks, NEW.cost, NEW.landing_views) ON CONFLICT (`day`, `campaign_id`, `source_id`, `offer_id`, `landing_id`) DO UPDATE SET clicks = clicks + excluded.clicks, unique_clicks = unique_clicks + excluded.unique_clicks, bot_clicks = bot_clicks + excluded.bot_clicks, cost = cost + excluded.cost, landing_views = landing_views + excluded.landing_views;
END;
--> statement-breakpoint
CREATE TRIGGER `click_stats_daily_upd` AFTER UPDATE ON `click_stats_hourly` BEGIN
  INSERT INTO `click_stats_daily` (`day`, `campaign_id`, `source_id`, `offer_id`, `landing_id`, `clicks`, `unique_clicks`, `bot_clicks`, `cost`, `landing_views`) VALUES (OLD.hour - OLD.hour % 86400000, OLD.campaign_id, OLD.source_id, OLD.offer_id, OLD.landing_id, -OLD.clicks, -OLD.unique_clicks, -OLD.bot_clicks, -OLD.cost, -OLD.landing_views) ON CONFLICT (`day`, `campaign_id`, `source_id`, `offer_id`, `landing_id`) DO UPDATE SET clicks = clicks + excluded.clicks, unique_clicks = unique_clicks + excluded.unique_clicks, bot_clicks = bot_clicks + excluded.bot_clicks, cost = cost + excluded.cost, landing_views = landing_views + excluded.landing_views;
  INSERT INTO `click_stats_daily` (`day`, `campaign_id`, `source_id`, `offer_id`, `landing_id`, `clicks`, `unique_clicks`, `bot_clicks`, `cost`, `landing_views`) VALUES (NEW.hour - NEW.hour % 86400000, NEW.campaign_id, NEW.source_id, NEW.offer_id, NEW.landing_id, NEW.clicks, NEW.unique_clicks, NEW.bot_clicks, NEW.cost, NEW.landing_views) ON CONFLICT (`day`, `campaign_id`, `source_id`, `offer_id`, `landing_id`) DO UPDATE SET clicks = clicks + excluded.clicks, unique_clicks = unique_clicks + excluded.unique_clicks, bot_clicks = bot_clicks + excluded.bot_clicks, cost = cost + excluded.cost, landing_views = landing_views + excluded.landing_views;
END;
--> statement-breakpoint
CREATE TRIGGER `click_stats_daily_del` AFTER DELETE ON `click_stats_hourly` BEGIN
  INSERT INTO `click_stats_daily` (`day`, `campaign_id`, `source_id`, `offer_id`, `landing_id`, `clicks`, `unique_clicks`, `bot_clicks`, `cost`, `landing_views`) VALUES (OLD.hour - OLD.hour % 86400000, OLD.campaign_id, OLD.source_id, OLD.offer_id, OLD.landing_id, -OLD.clicks, -OLD.unique_clicks, -OLD.bot_clicks, -OLD.cost, -OLD.landing_views) ON CONFLICT (`day`, `campaign_id`, `source_id`, `offer_id`, `landing_id`) DO UPDATE SET clicks = clicks + excluded.clicks, unique_clicks = unique_clicks + excluded.unique_clicks, bot_clicks = bot_clicks + excluded.bot_clicks, cost = cost + excluded.cost, landing_views = landing_views + excluded.landing_views;
END;
--> statement-breakpoint
CREATE TRIGGER `conversion_stats_daily_ins` AFTER INSERT ON `conversion_stats_hourly` BEGIN
  INSERT INTO `conversion_stats_daily` (`day`, `campaign_id`, `source_id`, `offer_id`, `landing_id`, `type`, `conversions`, `revenue`, `revenue_abs`) VALUES (NEW.hour - NEW.hour % 86400000, NEW.campaign_id, NEW.source_id, NEW.offer_id, NEW.landing_id, NEW.type, NEW.conversions, NEW.revenue, NEW.revenue_abs) ON CONFLICT (`day`, `campaign_id`, `source_id`, `offer_id`, `landing_id`, `type`) DO UPDATE SET conversions = conversions + excluded.conversions, revenue = revenue + excluded.revenue, revenue_abs = revenue_abs + excluded.revenue_abs;
END;
--> statement-breakpoint
CREATE TRIGGER `conversion_stats_daily_upd` AFTER UPDATE ON `conversion_stats_hourly` BEGIN
  INSERT INTO `conversion_stats_daily` (`day`, `campaign_id`, `source_id`, `offer_id`, `landing_id`, `type`, `conversions`, `revenue`, `revenue_abs`) VALUES (OLD.hour - OLD.hour % 86400000, OLD.campaign_id, OLD.source_id, OLD.offer_id, OLD.landing_id, OLD.type, -OLD.conversions, -OLD.revenue, -OLD.revenue_abs) ON CONFLICT (`day`, `campaign_id`, `source_id`, `offer_id`, `landing_id`, `type`) DO UPDATE SET conversions = conversions + excluded.conversions, revenue = revenue + excluded.revenue, revenue_abs = revenue_abs + excluded.revenue_abs;
  INSERT INTO `conversion_stats_daily` (`day`, `campaign_id`, `source_id`, `offer_id`, `landing_id`, `type`, `conversions`, `revenue`, `revenue_abs`) VALUES (NEW.hour - NEW.hour % 86400000, NEW.campaign_id, NEW.source_id, NEW.offer_id, NEW.landing_id, NEW.type, NEW.conversions, NEW.revenue, NEW.revenue_abs) ON CONFLICT (`day`, `campaign_id`, `source_id`, `offer_id`, `landing_id`, `type`) DO UPDATE SET conversions = conversions + excluded.conversions, revenue = revenue + excluded.revenue, revenue_abs = revenue_abs + excluded.revenue_abs;
END;
--> statement-breakpoint
CREATE TRIGGER `conversion_stats_daily_del` AFTER DELETE ON `conversion_stats_hourly` BEGIN
  INSERT INTO `conversion_stats_daily` (`day`, `campaign_id`, `source_id`, `offer_id`, `landing_id`, `type`, `conversions`, `revenue`, `revenue_abs`) VALUES (OLD.hour - OLD.hour % 86400000, OLD.campaign_id, OLD.source_id, OLD.offer_id, OLD.landing_id, OLD.type, -OLD.conversions, -OLD.revenue, -OLD.revenue_abs) ON CONFLICT (`day`, `campaign_id`, `source_id`, `offer_id`, `landing_id`, `type`) DO UPDATE SET conversions = conversions + excluded.conversions, revenue = revenue + excluded.revenue, revenue_abs = revenue_abs + excluded.revenue_abs;
END;
