CREATE TABLE `click_country_daily` (
	`day` integer NOT NULL,
	`campaign_id` integer NOT NULL,
	`country` text DEFAULT '' NOT NULL,
	`clicks` integer DEFAULT 0 NOT NULL,
	`unique_clicks` integer DEFAULT 0 NOT NULL,
	`bot_clicks` integer DEFAULT 0 NOT NULL,
	`cost` real DEFAULT 0 NOT NULL,
	`landing_views` integer DEFAULT 0 NOT NULL,
	`landing_clicks` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`day`, `campaign_id`, `country`)
) WITHOUT ROWID;

--> statement-breakpoint
CREATE TABLE `click_country_hourly` (
	`hour` integer NOT NULL,
	`campaign_id` integer NOT NULL,
	`country` text DEFAULT '' NOT NULL,
	`clicks` integer DEFAULT 0 NOT NULL,
	`unique_clicks` integer DEFAULT 0 NOT NULL,
	`bot_clicks` integer DEFAULT 0 NOT NULL,
	`cost` real DEFAULT 0 NOT NULL,
	`landing_views` integer DEFAULT 0 NOT NULL,
	`landing_clicks` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`hour`, `campaign_id`, `country`)
);

--> statement-breakpoint
CREATE TABLE `click_country_total_daily` (
	`day` integer NOT NULL,
	`country` text DEFAULT '' NOT NULL,
	`clicks` integer DEFAULT 0 NOT NULL,
	`unique_clicks` integer DEFAULT 0 NOT NULL,
	`bot_clicks` integer DEFAULT 0 NOT NULL,
	`cost` real DEFAULT 0 NOT NULL,
	`landing_views` integer DEFAULT 0 NOT NULL,
	`landing_clicks` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`day`, `country`)
) WITHOUT ROWID;

--> statement-breakpoint
CREATE TABLE `click_path_daily` (
	`day` integer NOT NULL,
	`campaign_id` integer NOT NULL,
	`path_id` integer DEFAULT 0 NOT NULL,
	`clicks` integer DEFAULT 0 NOT NULL,
	`unique_clicks` integer DEFAULT 0 NOT NULL,
	`bot_clicks` integer DEFAULT 0 NOT NULL,
	`cost` real DEFAULT 0 NOT NULL,
	`landing_views` integer DEFAULT 0 NOT NULL,
	`landing_clicks` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`day`, `campaign_id`, `path_id`)
) WITHOUT ROWID;

--> statement-breakpoint
CREATE TABLE `click_path_hourly` (
	`hour` integer NOT NULL,
	`campaign_id` integer NOT NULL,
	`path_id` integer DEFAULT 0 NOT NULL,
	`clicks` integer DEFAULT 0 NOT NULL,
	`unique_clicks` integer DEFAULT 0 NOT NULL,
	`bot_clicks` integer DEFAULT 0 NOT NULL,
	`cost` real DEFAULT 0 NOT NULL,
	`landing_views` integer DEFAULT 0 NOT NULL,
	`landing_clicks` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`hour`, `campaign_id`, `path_id`)
);

--> statement-breakpoint
CREATE TABLE `conversion_country_daily` (
	`day` integer NOT NULL,
	`campaign_id` integer NOT NULL,
	`country` text DEFAULT '' NOT NULL,
	`type` text NOT NULL,
	`currency` text DEFAULT '' NOT NULL,
	`conversions` integer DEFAULT 0 NOT NULL,
	`revenue` real DEFAULT 0 NOT NULL,
	`revenue_abs` real DEFAULT 0 NOT NULL,
	PRIMARY KEY(`day`, `campaign_id`, `country`, `type`, `currency`)
) WITHOUT ROWID;

--> statement-breakpoint
CREATE TABLE `conversion_country_hourly` (
	`hour` integer NOT NULL,
	`campaign_id` integer NOT NULL,
	`country` text DEFAULT '' NOT NULL,
	`type` text NOT NULL,
	`currency` text DEFAULT '' NOT NULL,
	`conversions` integer DEFAULT 0 NOT NULL,
	`revenue` real DEFAULT 0 NOT NULL,
	`revenue_abs` real DEFAULT 0 NOT NULL,
	PRIMARY KEY(`hour`, `campaign_id`, `country`, `type`, `currency`)
);

--> statement-breakpoint
CREATE TABLE `conversion_country_total_daily` (
	`day` integer NOT NULL,
	`country` text DEFAULT '' NOT NULL,
	`type` text NOT NULL,
	`currency` text DEFAULT '' NOT NULL,
	`conversions` integer DEFAULT 0 NOT NULL,
	`revenue` real DEFAULT 0 NOT NULL,
	`revenue_abs` real DEFAULT 0 NOT NULL,
	PRIMARY KEY(`day`, `country`, `type`, `currency`)
) WITHOUT ROWID;

--> statement-breakpoint
CREATE TABLE `conversion_path_daily` (
	`day` integer NOT NULL,
	`campaign_id` integer NOT NULL,
	`path_id` integer DEFAULT 0 NOT NULL,
	`type` text NOT NULL,
	`currency` text DEFAULT '' NOT NULL,
	`conversions` integer DEFAULT 0 NOT NULL,
	`revenue` real DEFAULT 0 NOT NULL,
	`revenue_abs` real DEFAULT 0 NOT NULL,
	PRIMARY KEY(`day`, `campaign_id`, `path_id`, `type`, `currency`)
) WITHOUT ROWID;

--> statement-breakpoint
CREATE TABLE `conversion_path_hourly` (
	`hour` integer NOT NULL,
	`campaign_id` integer NOT NULL,
	`path_id` integer DEFAULT 0 NOT NULL,
	`type` text NOT NULL,
	`currency` text DEFAULT '' NOT NULL,
	`conversions` integer DEFAULT 0 NOT NULL,
	`revenue` real DEFAULT 0 NOT NULL,
	`revenue_abs` real DEFAULT 0 NOT NULL,
	PRIMARY KEY(`hour`, `campaign_id`, `path_id`, `type`, `currency`)
);

--> statement-breakpoint
ALTER TABLE `conversions` ADD `country` text;
--> statement-breakpoint
ALTER TABLE `conversions` ADD `path_id` integer;
--> statement-breakpoint
-- Hand-written below this line (drizzle-kit does not model WITHOUT ROWID, triggers or backfills): the targeting
-- rollups of issue 28 (src/db/schema/stats.ts). Conversions copy their click's country and path from now on;
-- those recorded before copy them here, from their click while it is still kept.
UPDATE `conversions` SET
  `country` = (SELECT c.`country` FROM `clicks` c WHERE c.`id` = `conversions`.`click_row_id`),
  `path_id` = (SELECT c.`path_id` FROM `clicks` c WHERE c.`id` = `conversions`.`click_row_id`)
WHERE EXISTS (SELECT 1 FROM `clicks` c WHERE c.`id` = `conversions`.`click_row_id` AND (c.`country` IS NOT NULL OR c.`path_id` IS NOT NULL));
--> statement-breakpoint
INSERT INTO `click_country_hourly` (`hour`, `campaign_id`, `country`, `clicks`, `unique_clicks`, `bot_clicks`, `cost`, `landing_views`, `landing_clicks`)
SELECT c.`created_at` - c.`created_at` % 3600000, c.`campaign_id`, coalesce(c.`country`, ''), count(*),
  sum(CASE WHEN coalesce(c.`bot_reason`, '') = '' AND c.`is_unique` <> 0 THEN 1 ELSE 0 END),
  sum(CASE WHEN coalesce(c.`bot_reason`, '') <> '' THEN 1 ELSE 0 END), total(c.`cost`), count(c.`landing_viewed_at`), count(c.`landing_clicked_at`)
FROM `clicks` c WHERE c.`excluded` = 0 GROUP BY 1, 2, 3;
--> statement-breakpoint
-- What the campaign rollups count beyond that (clicks pruned by retention): unknown country / default
-- rotation, so a report by country or path adds up to the same totals as one by campaign.
INSERT INTO `click_country_hourly` AS g (`hour`, `campaign_id`, `country`, `clicks`, `unique_clicks`, `bot_clicks`, `cost`, `landing_views`, `landing_clicks`)
SELECT r.`hour`, r.`campaign_id`, '', r.`clicks` - coalesce(s.`clicks`, 0), r.`unique_clicks` - coalesce(s.`unique_clicks`, 0), r.`bot_clicks` - coalesce(s.`bot_clicks`, 0), r.`cost` - coalesce(s.`cost`, 0), r.`landing_views` - coalesce(s.`landing_views`, 0), r.`landing_clicks` - coalesce(s.`landing_clicks`, 0)
FROM (SELECT `hour`, `campaign_id`, sum(`clicks`) AS `clicks`, sum(`unique_clicks`) AS `unique_clicks`, sum(`bot_clicks`) AS `bot_clicks`,
    total(`cost`) AS `cost`, sum(`landing_views`) AS `landing_views`, sum(`landing_clicks`) AS `landing_clicks`
  FROM `click_stats_hourly` GROUP BY 1, 2) r
LEFT JOIN (SELECT `hour`, `campaign_id`, sum(`clicks`) AS `clicks`, sum(`unique_clicks`) AS `unique_clicks`, sum(`bot_clicks`) AS `bot_clicks`,
    total(`cost`) AS `cost`, sum(`landing_views`) AS `landing_views`, sum(`landing_clicks`) AS `landing_clicks`
  FROM `click_country_hourly` GROUP BY 1, 2) s ON s.`hour` = r.`hour` AND s.`campaign_id` = r.`campaign_id`
WHERE r.`clicks` <> coalesce(s.`clicks`, 0) OR r.`unique_clicks` <> coalesce(s.`unique_clicks`, 0) OR r.`bot_clicks` <> coalesce(s.`bot_clicks`, 0) OR abs(r.`cost` - coalesce(s.`cost`, 0)) > 1e-9 OR r.`landing_views` <> coalesce(s.`landing_views`, 0) OR r.`landing_clicks` <> coalesce(s.`landing_clicks`, 0)
ON CONFLICT (`hour`, `campaign_id`, `country`) DO UPDATE SET clicks = g.clicks + excluded.clicks, unique_clicks = g.unique_clicks + excluded.unique_clicks, bot_clicks = g.bot_clicks + excluded.bot_clicks, cost = g.cost + excluded.cost, landing_views = g.landing_views + excluded.landing_views, landing_clicks = g.landing_clicks + excluded.landing_clicks;
--> statement-breakpoint
-- Conversions (never pruned) by the country and path they copied, leaving out those of excluded clicks.
INSERT INTO `conversion_country_hourly` (`hour`, `campaign_id`, `country`, `type`, `currency`, `conversions`, `revenue`, `revenue_abs`)
SELECT v.`date` - v.`date` % 3600000, v.`campaign_id`, coalesce(v.`country`, ''), v.`type`, upper(coalesce(v.`currency`, '')),
  count(*), total(v.`revenue`), total(abs(v.`revenue`))
FROM `conversions` v WHERE NOT EXISTS (SELECT 1 FROM `clicks` c WHERE c.`id` = v.`click_row_id` AND c.`excluded` <> 0)
GROUP BY 1, 2, 3, 4, 5;
--> statement-breakpoint
-- Whatever the campaign rollups hold beyond the raw conversions stays counted, as unknown country / default rotation.
INSERT INTO `conversion_country_hourly` AS g (`hour`, `campaign_id`, `country`, `type`, `currency`, `conversions`, `revenue`, `revenue_abs`)
SELECT r.`hour`, r.`campaign_id`, '', r.`type`, r.`currency`, r.`conversions` - coalesce(s.`conversions`, 0), r.`revenue` - coalesce(s.`revenue`, 0),
  r.`revenue_abs` - coalesce(s.`revenue_abs`, 0)
FROM (SELECT `hour`, `campaign_id`, `type`, `currency`, sum(`conversions`) AS `conversions`, total(`revenue`) AS `revenue`,
    total(`revenue_abs`) AS `revenue_abs` FROM `conversion_stats_hourly` GROUP BY 1, 2, 3, 4) r
LEFT JOIN (SELECT `hour`, `campaign_id`, `type`, `currency`, sum(`conversions`) AS `conversions`, total(`revenue`) AS `revenue`,
    total(`revenue_abs`) AS `revenue_abs` FROM `conversion_country_hourly` GROUP BY 1, 2, 3, 4) s
  ON s.`hour` = r.`hour` AND s.`campaign_id` = r.`campaign_id` AND s.`type` = r.`type` AND s.`currency` = r.`currency`
WHERE r.`conversions` <> coalesce(s.`conversions`, 0) OR abs(r.`revenue` - coalesce(s.`revenue`, 0)) > 1e-9 OR abs(r.`revenue_abs` - coalesce(s.`revenue_abs`, 0)) > 1e-9
ON CONFLICT (`hour`, `campaign_id`, `country`, `type`, `currency`) DO UPDATE SET conversions = g.conversions + excluded.conversions,
  revenue = g.revenue + excluded.revenue, revenue_abs = g.revenue_abs + excluded.revenue_abs;
--> statement-breakpoint
INSERT INTO `click_country_daily` (`day`, `campaign_id`, `country`, `clicks`, `unique_clicks`, `bot_clicks`, `cost`, `landing_views`, `landing_clicks`)
SELECT `hour` - `hour` % 86400000, `campaign_id`, `country`, sum(`clicks`), sum(`unique_clicks`), sum(`bot_clicks`), sum(`cost`), sum(`landing_views`), sum(`landing_clicks`)
FROM `click_country_hourly` GROUP BY 1, 2, 3;
--> statement-breakpoint
INSERT INTO `conversion_country_daily` (`day`, `campaign_id`, `country`, `type`, `currency`, `conversions`, `revenue`, `revenue_abs`)
SELECT `hour` - `hour` % 86400000, `campaign_id`, `country`, `type`, `currency`, sum(`conversions`), sum(`revenue`), sum(`revenue_abs`)
FROM `conversion_country_hourly` GROUP BY 1, 2, 3, 4, 5;
--> statement-breakpoint
-- Totals over all campaigns per day and country (the report by country without a campaign).
INSERT INTO `click_country_total_daily` (`day`, `country`, `clicks`, `unique_clicks`, `bot_clicks`, `cost`, `landing_views`, `landing_clicks`)
SELECT `day`, `country`, sum(`clicks`), sum(`unique_clicks`), sum(`bot_clicks`), sum(`cost`), sum(`landing_views`), sum(`landing_clicks`)
FROM `click_country_daily` GROUP BY 1, 2;
--> statement-breakpoint
INSERT INTO `conversion_country_total_daily` (`day`, `country`, `type`, `currency`, `conversions`, `revenue`, `revenue_abs`)
SELECT `day`, `country`, `type`, `currency`, sum(`conversions`), sum(`revenue`), sum(`revenue_abs`)
FROM `conversion_country_daily` GROUP BY 1, 2, 3, 4;
--> statement-breakpoint
INSERT INTO `click_path_hourly` (`hour`, `campaign_id`, `path_id`, `clicks`, `unique_clicks`, `bot_clicks`, `cost`, `landing_views`, `landing_clicks`)
SELECT c.`created_at` - c.`created_at` % 3600000, c.`campaign_id`, coalesce(c.`path_id`, 0), count(*),
  sum(CASE WHEN coalesce(c.`bot_reason`, '') = '' AND c.`is_unique` <> 0 THEN 1 ELSE 0 END),
  sum(CASE WHEN coalesce(c.`bot_reason`, '') <> '' THEN 1 ELSE 0 END), total(c.`cost`), count(c.`landing_viewed_at`), count(c.`landing_clicked_at`)
FROM `clicks` c WHERE c.`excluded` = 0 GROUP BY 1, 2, 3;
--> statement-breakpoint
INSERT INTO `click_path_hourly` AS g (`hour`, `campaign_id`, `path_id`, `clicks`, `unique_clicks`, `bot_clicks`, `cost`, `landing_views`, `landing_clicks`)
SELECT r.`hour`, r.`campaign_id`, 0, r.`clicks` - coalesce(s.`clicks`, 0), r.`unique_clicks` - coalesce(s.`unique_clicks`, 0), r.`bot_clicks` - coalesce(s.`bot_clicks`, 0), r.`cost` - coalesce(s.`cost`, 0), r.`landing_views` - coalesce(s.`landing_views`, 0), r.`landing_clicks` - coalesce(s.`landing_clicks`, 0)
FROM (SELECT `hour`, `campaign_id`, sum(`clicks`) AS `clicks`, sum(`unique_clicks`) AS `unique_clicks`, sum(`bot_clicks`) AS `bot_clicks`,
    total(`cost`) AS `cost`, sum(`landing_views`) AS `landing_views`, sum(`landing_clicks`) AS `landing_clicks`
  FROM `click_stats_hourly` GROUP BY 1, 2) r
LEFT JOIN (SELECT `hour`, `campaign_id`, sum(`clicks`) AS `clicks`, sum(`unique_clicks`) AS `unique_clicks`, sum(`bot_clicks`) AS `bot_clicks`,
    total(`cost`) AS `cost`, sum(`landing_views`) AS `landing_views`, sum(`landing_clicks`) AS `landing_clicks`
  FROM `click_path_hourly` GROUP BY 1, 2) s ON s.`hour` = r.`hour` AND s.`campaign_id` = r.`campaign_id`
WHERE r.`clicks` <> coalesce(s.`clicks`, 0) OR r.`unique_clicks` <> coalesce(s.`unique_clicks`, 0) OR r.`bot_clicks` <> coalesce(s.`bot_clicks`, 0) OR abs(r.`cost` - coalesce(s.`cost`, 0)) > 1e-9 OR r.`landing_views` <> coalesce(s.`landing_views`, 0) OR r.`landing_clicks` <> coalesce(s.`landing_clicks`, 0)
ON CONFLICT (`hour`, `campaign_id`, `path_id`) DO UPDATE SET clicks = g.clicks + excluded.clicks, unique_clicks = g.unique_clicks + excluded.unique_clicks, bot_clicks = g.bot_clicks + excluded.bot_clicks, cost = g.cost + excluded.cost, landing_views = g.landing_views + excluded.landing_views, landing_clicks = g.landing_clicks + excluded.landing_clicks;
--> statement-breakpoint
INSERT INTO `conversion_path_hourly` (`hour`, `campaign_id`, `path_id`, `type`, `currency`, `conversions`, `revenue`, `revenue_abs`)
SELECT v.`date` - v.`date` % 3600000, v.`campaign_id`, coalesce(v.`path_id`, 0), v.`type`, upper(coalesce(v.`currency`, '')),
  count(*), total(v.`revenue`), total(abs(v.`revenue`))
FROM `conversions` v WHERE NOT EXISTS (SELECT 1 FROM `clicks` c WHERE c.`id` = v.`click_row_id` AND c.`excluded` <> 0)
GROUP BY 1, 2, 3, 4, 5;
--> statement-breakpoint
INSERT INTO `conversion_path_hourly` AS g (`hour`, `campaign_id`, `path_id`, `type`, `currency`, `conversions`, `revenue`, `revenue_abs`)
SELECT r.`hour`, r.`campaign_id`, 0, r.`type`, r.`currency`, r.`conversions` - coalesce(s.`conversions`, 0), r.`revenue` - coalesce(s.`revenue`, 0),
  r.`revenue_abs` - coalesce(s.`revenue_abs`, 0)
FROM (SELECT `hour`, `campaign_id`, `type`, `currency`, sum(`conversions`) AS `conversions`, total(`revenue`) AS `revenue`,
    total(`revenue_abs`) AS `revenue_abs` FROM `conversion_stats_hourly` GROUP BY 1, 2, 3, 4) r
LEFT JOIN (SELECT `hour`, `campaign_id`, `type`, `currency`, sum(`conversions`) AS `conversions`, total(`revenue`) AS `revenue`,
    total(`revenue_abs`) AS `revenue_abs` FROM `conversion_path_hourly` GROUP BY 1, 2, 3, 4) s
  ON s.`hour` = r.`hour` AND s.`campaign_id` = r.`campaign_id` AND s.`type` = r.`type` AND s.`currency` = r.`currency`
WHERE r.`conversions` <> coalesce(s.`conversions`, 0) OR abs(r.`revenue` - coalesce(s.`revenue`, 0)) > 1e-9 OR abs(r.`revenue_abs` - coalesce(s.`revenue_abs`, 0)) > 1e-9
ON CONFLICT (`hour`, `campaign_id`, `path_id`, `type`, `currency`) DO UPDATE SET conversions = g.conversions + excluded.conversions,
  revenue = g.revenue + excluded.revenue, revenue_abs = g.revenue_abs + excluded.revenue_abs;
--> statement-breakpoint
INSERT INTO `click_path_daily` (`day`, `campaign_id`, `path_id`, `clicks`, `unique_clicks`, `bot_clicks`, `cost`, `landing_views`, `landing_clicks`)
SELECT `hour` - `hour` % 86400000, `campaign_id`, `path_id`, sum(`clicks`), sum(`unique_clicks`), sum(`bot_clicks`), sum(`cost`), sum(`landing_views`), sum(`landing_clicks`)
FROM `click_path_hourly` GROUP BY 1, 2, 3;
--> statement-breakpoint
INSERT INTO `conversion_path_daily` (`day`, `campaign_id`, `path_id`, `type`, `currency`, `conversions`, `revenue`, `revenue_abs`)
SELECT `hour` - `hour` % 86400000, `campaign_id`, `path_id`, `type`, `currency`, sum(`conversions`), sum(`revenue`), sum(`revenue_abs`)
FROM `conversion_path_hourly` GROUP BY 1, 2, 3, 4, 5;
--> statement-breakpoint
-- Daily rows = sum of their hourly rows (the triggers of 0002, for the targeting rollups).
CREATE TRIGGER `click_country_daily_ins` AFTER INSERT ON `click_country_hourly` BEGIN
  INSERT INTO `click_country_daily` (`day`, `campaign_id`, `country`, `clicks`, `unique_clicks`, `bot_clicks`, `cost`, `landing_views`, `landing_clicks`) VALUES (NEW.hour - NEW.hour % 86400000, NEW.campaign_id, NEW.country, NEW.clicks, NEW.unique_clicks, NEW.bot_clicks, NEW.cost, NEW.landing_views, NEW.landing_clicks) ON CONFLICT (`day`, `campaign_id`, `country`) DO UPDATE SET clicks = clicks + excluded.clicks, unique_clicks = unique_clicks + excluded.unique_clicks, bot_clicks = bot_clicks + excluded.bot_clicks, cost = cost + excluded.cost, landing_views = landing_views + excluded.landing_views, landing_clicks = landing_clicks + excluded.landing_clicks;
END;
--> statement-breakpoint
CREATE TRIGGER `click_country_daily_upd` AFTER UPDATE ON `click_country_hourly` BEGIN
  INSERT INTO `click_country_daily` (`day`, `campaign_id`, `country`, `clicks`, `unique_clicks`, `bot_clicks`, `cost`, `landing_views`, `landing_clicks`) VALUES (OLD.hour - OLD.hour % 86400000, OLD.campaign_id, OLD.country, -OLD.clicks, -OLD.unique_clicks, -OLD.bot_clicks, -OLD.cost, -OLD.landing_views, -OLD.landing_clicks) ON CONFLICT (`day`, `campaign_id`, `country`) DO UPDATE SET clicks = clicks + excluded.clicks, unique_clicks = unique_clicks + excluded.unique_clicks, bot_clicks = bot_clicks + excluded.bot_clicks, cost = cost + excluded.cost, landing_views = landing_views + excluded.landing_views, landing_clicks = landing_clicks + excluded.landing_clicks;
  INSERT INTO `click_country_daily` (`day`, `campaign_id`, `country`, `clicks`, `unique_clicks`, `bot_clicks`, `cost`, `landing_views`, `landing_clicks`) VALUES (NEW.hour - NEW.hour % 86400000, NEW.campaign_id, NEW.country, NEW.clicks, NEW.unique_clicks, NEW.bot_clicks, NEW.cost, NEW.landing_views, NEW.landing_clicks) ON CONFLICT (`day`, `campaign_id`, `country`) DO UPDATE SET clicks = clicks + excluded.clicks, unique_clicks = unique_clicks + excluded.unique_clicks, bot_clicks = bot_clicks + excluded.bot_clicks, cost = cost + excluded.cost, landing_views = landing_views + excluded.landing_views, landing_clicks = landing_clicks + excluded.landing_clicks;
END;
--> statement-breakpoint
CREATE TRIGGER `click_country_daily_del` AFTER DELETE ON `click_country_hourly` BEGIN
  INSERT INTO `click_country_daily` (`day`, `campaign_id`, `country`, `clicks`, `unique_clicks`, `bot_clicks`, `cost`, `landing_views`, `landing_clicks`) VALUES (OLD.hour - OLD.hour % 86400000, OLD.campaign_id, OLD.country, -OLD.clicks, -OLD.unique_clicks, -OLD.bot_clicks, -OLD.cost, -OLD.landing_views, -OLD.landing_clicks) ON CONFLICT (`day`, `campaign_id`, `country`) DO UPDATE SET clicks = clicks + excluded.clicks, unique_clicks = unique_clicks + excluded.unique_clicks, bot_clicks = bot_clicks + excluded.bot_clicks, cost = cost + excluded.cost, landing_views = landing_views + excluded.landing_views, landing_clicks = landing_clicks + excluded.landing_clicks;
END;
--> statement-breakpoint
CREATE TRIGGER `conversion_country_daily_ins` AFTER INSERT ON `conversion_country_hourly` BEGIN
  INSERT INTO `conversion_country_daily` (`day`, `campaign_id`, `country`, `type`, `currency`, `conversions`, `revenue`, `revenue_abs`) VALUES (NEW.hour - NEW.hour % 86400000, NEW.campaign_id, NEW.country, NEW.type, NEW.currency, NEW.conversions, NEW.revenue, NEW.revenue_abs) ON CONFLICT (`day`, `campaign_id`, `country`, `type`, `currency`) DO UPDATE SET conversions = conversions + excluded.conversions, revenue = revenue + excluded.revenue, revenue_abs = revenue_abs + excluded.revenue_abs;
END;
--> statement-breakpoint
CREATE TRIGGER `conversion_country_daily_upd` AFTER UPDATE ON `conversion_country_hourly` BEGIN
  INSERT INTO `conversion_country_daily` (`day`, `campaign_id`, `country`, `type`, `currency`, `conversions`, `revenue`, `revenue_abs`) VALUES (OLD.hour - OLD.hour % 86400000, OLD.campaign_id, OLD.country, OLD.type, OLD.currency, -OLD.conversions, -OLD.revenue, -OLD.revenue_abs) ON CONFLICT (`day`, `campaign_id`, `country`, `type`, `currency`) DO UPDATE SET conversions = conversions + excluded.conversions, revenue = revenue + excluded.revenue, revenue_abs = revenue_abs + excluded.revenue_abs;
  INSERT INTO `conversion_country_daily` (`day`, `campaign_id`, `country`, `type`, `currency`, `conversions`, `revenue`, `revenue_abs`) VALUES (NEW.hour - NEW.hour % 86400000, NEW.campaign_id, NEW.country, NEW.type, NEW.currency, NEW.conversions, NEW.revenue, NEW.revenue_abs) ON CONFLICT (`day`, `campaign_id`, `country`, `type`, `currency`) DO UPDATE SET conversions = conversions + excluded.conversions, revenue = revenue + excluded.revenue, revenue_abs = revenue_abs + excluded.revenue_abs;
END;
--> statement-breakpoint
CREATE TRIGGER `conversion_country_daily_del` AFTER DELETE ON `conversion_country_hourly` BEGIN
  INSERT INTO `conversion_country_daily` (`day`, `campaign_id`, `country`, `type`, `currency`, `conversions`, `revenue`, `revenue_abs`) VALUES (OLD.hour - OLD.hour % 86400000, OLD.campaign_id, OLD.country, OLD.type, OLD.currency, -OLD.conversions, -OLD.revenue, -OLD.revenue_abs) ON CONFLICT (`day`, `campaign_id`, `country`, `type`, `currency`) DO UPDATE SET conversions = conversions + excluded.conversions, revenue = revenue + excluded.revenue, revenue_abs = revenue_abs + excluded.revenue_abs;
END;
--> statement-breakpoint
CREATE TRIGGER `click_path_daily_ins` AFTER INSERT ON `click_path_hourly` BEGIN
  INSERT INTO `click_path_daily` (`day`, `campaign_id`, `path_id`, `clicks`, `unique_clicks`, `bot_clicks`, `cost`, `landing_views`, `landing_clicks`) VALUES (NEW.hour - NEW.hour % 86400000, NEW.campaign_id, NEW.path_id, NEW.clicks, NEW.unique_clicks, NEW.bot_clicks, NEW.cost, NEW.landing_views, NEW.landing_clicks) ON CONFLICT (`day`, `campaign_id`, `path_id`) DO UPDATE SET clicks = clicks + excluded.clicks, unique_clicks = unique_clicks + excluded.unique_clicks, bot_clicks = bot_clicks + excluded.bot_clicks, cost = cost + excluded.cost, landing_views = landing_views + excluded.landing_views, landing_clicks = landing_clicks + excluded.landing_clicks;
END;
--> statement-breakpoint
CREATE TRIGGER `click_path_daily_upd` AFTER UPDATE ON `click_path_hourly` BEGIN
  INSERT INTO `click_path_daily` (`day`, `campaign_id`, `path_id`, `clicks`, `unique_clicks`, `bot_clicks`, `cost`, `landing_views`, `landing_clicks`) VALUES (OLD.hour - OLD.hour % 86400000, OLD.campaign_id, OLD.path_id, -OLD.clicks, -OLD.unique_clicks, -OLD.bot_clicks, -OLD.cost, -OLD.landing_views, -OLD.landing_clicks) ON CONFLICT (`day`, `campaign_id`, `path_id`) DO UPDATE SET clicks = clicks + excluded.clicks, unique_clicks = unique_clicks + excluded.unique_clicks, bot_clicks = bot_clicks + excluded.bot_clicks, cost = cost + excluded.cost, landing_views = landing_views + excluded.landing_views, landing_clicks = landing_clicks + excluded.landing_clicks;
  INSERT INTO `click_path_daily` (`day`, `campaign_id`, `path_id`, `clicks`, `unique_clicks`, `bot_clicks`, `cost`, `landing_views`, `landing_clicks`) VALUES (NEW.hour - NEW.hour % 86400000, NEW.campaign_id, NEW.path_id, NEW.clicks, NEW.unique_clicks, NEW.bot_clicks, NEW.cost, NEW.landing_views, NEW.landing_clicks) ON CONFLICT (`day`, `campaign_id`, `path_id`) DO UPDATE SET clicks = clicks + excluded.clicks, unique_clicks = unique_clicks + excluded.unique_clicks, bot_clicks = bot_clicks + excluded.bot_clicks, cost = cost + excluded.cost, landing_views = landing_views + excluded.landing_views, landing_clicks = landing_clicks + excluded.landing_clicks;
END;
--> statement-breakpoint
CREATE TRIGGER `click_path_daily_del` AFTER DELETE ON `click_path_hourly` BEGIN
  INSERT INTO `click_path_daily` (`day`, `campaign_id`, `path_id`, `clicks`, `unique_clicks`, `bot_clicks`, `cost`, `landing_views`, `landing_clicks`) VALUES (OLD.hour - OLD.hour % 86400000, OLD.campaign_id, OLD.path_id, -OLD.clicks, -OLD.unique_clicks, -OLD.bot_clicks, -OLD.cost, -OLD.landing_views, -OLD.landing_clicks) ON CONFLICT (`day`, `campaign_id`, `path_id`) DO UPDATE SET clicks = clicks + excluded.clicks, unique_clicks = unique_clicks + excluded.unique_clicks, bot_clicks = bot_clicks + excluded.bot_clicks, cost = cost + excluded.cost, landing_views = landing_views + excluded.landing_views, landing_clicks = landing_clicks + excluded.landing_clicks;
END;
--> statement-breakpoint
CREATE TRIGGER `conversion_path_daily_ins` AFTER INSERT ON `conversion_path_hourly` BEGIN
  INSERT INTO `conversion_path_daily` (`day`, `campaign_id`, `path_id`, `type`, `currency`, `conversions`, `revenue`, `revenue_abs`) VALUES (NEW.hour - NEW.hour % 86400000, NEW.campaign_id, NEW.path_id, NEW.type, NEW.currency, NEW.conversions, NEW.revenue, NEW.revenue_abs) ON CONFLICT (`day`, `campaign_id`, `path_id`, `type`, `currency`) DO UPDATE SET conversions = conversions + excluded.conversions, revenue = revenue + excluded.revenue, revenue_abs = revenue_abs + excluded.revenue_abs;
END;
--> statement-breakpoint
CREATE TRIGGER `conversion_path_daily_upd` AFTER UPDATE ON `conversion_path_hourly` BEGIN
  INSERT INTO `conversion_path_daily` (`day`, `campaign_id`, `path_id`, `type`, `currency`, `conversions`, `revenue`, `revenue_abs`) VALUES (OLD.hour - OLD.hour % 86400000, OLD.campaign_id, OLD.path_id, OLD.type, OLD.currency, -OLD.conversions, -OLD.revenue, -OLD.revenue_abs) ON CONFLICT (`day`, `campaign_id`, `path_id`, `type`, `currency`) DO UPDATE SET conversions = conversions + excluded.conversions, revenue = revenue + excluded.revenue, revenue_abs = revenue_abs + excluded.revenue_abs;
  INSERT INTO `conversion_path_daily` (`day`, `campaign_id`, `path_id`, `type`, `currency`, `conversions`, `revenue`, `revenue_abs`) VALUES (NEW.hour - NEW.hour % 86400000, NEW.campaign_id, NEW.path_id, NEW.type, NEW.currency, NEW.conversions, NEW.revenue, NEW.revenue_abs) ON CONFLICT (`day`, `campaign_id`, `path_id`, `type`, `currency`) DO UPDATE SET conversions = conversions + excluded.conversions, revenue = revenue + excluded.revenue, revenue_abs = revenue_abs + excluded.revenue_abs;
END;
--> statement-breakpoint
CREATE TRIGGER `conversion_path_daily_del` AFTER DELETE ON `conversion_path_hourly` BEGIN
  INSERT INTO `conversion_path_daily` (`day`, `campaign_id`, `path_id`, `type`, `currency`, `conversions`, `revenue`, `revenue_abs`) VALUES (OLD.hour - OLD.hour % 86400000, OLD.campaign_id, OLD.path_id, OLD.type, OLD.currency, -OLD.conversions, -OLD.revenue, -OLD.revenue_abs) ON CONFLICT (`day`, `campaign_id`, `path_id`, `type`, `currency`) DO UPDATE SET conversions = conversions + excluded.conversions, revenue = revenue + excluded.revenue, revenue_abs = revenue_abs + excluded.revenue_abs;
END;
--> statement-breakpoint
CREATE TABLE `rollup_marks` (
	`name` text PRIMARY KEY NOT NULL,
	`row_id` integer NOT NULL
);
