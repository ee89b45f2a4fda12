-- Conversion rollups keyed by currency as well (issue 26: reports never add two currencies). `currency` is the
-- conversion's own code, upper-case, or '' for a conversion recorded without one (old rows, conversions.record
-- without a currency): reports read '' as the cost_currency setting, so such conversions follow that setting.
-- SQLite cannot change a primary key in place: both tables are rebuilt (their daily triggers go with the old
-- hourly table and are created again below, with the currency).
CREATE TABLE `conversion_stats_hourly_cur` (
	`hour` integer NOT NULL,
	`campaign_id` integer NOT NULL,
	`source_id` integer NOT NULL,
	`offer_id` integer NOT NULL,
	`landing_id` integer NOT NULL,
	`type` text NOT NULL,
	`currency` text DEFAULT '' NOT NULL,
	`conversions` integer DEFAULT 0 NOT NULL,
	`revenue` real DEFAULT 0 NOT NULL,
	`revenue_abs` real DEFAULT 0 NOT NULL,
	PRIMARY KEY(`hour`, `campaign_id`, `source_id`, `offer_id`, `landing_id`, `type`, `currency`)
);
--> statement-breakpoint
-- Backfill, exact: each existing hourly row is split by the currencies of the raw conversions it counts
-- (conversions are never pruned; those of excluded clicks were never counted, as in the live writer).
INSERT INTO `conversion_stats_hourly_cur` (`hour`, `campaign_id`, `source_id`, `offer_id`, `landing_id`, `type`, `currency`, `conversions`, `revenue`, `revenue_abs`)
SELECT r.`hour`, r.`campaign_id`, r.`source_id`, r.`offer_id`, r.`landing_id`, r.`type`, v.`currency`, v.`n`, v.`rev`, v.`abs`
FROM `conversion_stats_hourly` r JOIN (
  SELECT v.`date` - v.`date` % 3600000 AS `hour`, v.`campaign_id`, coalesce(v.`source_id`, 0) AS `source_id`, coalesce(v.`offer_id`, 0) AS `offer_id`,
    coalesce(v.`landing_id`, 0) AS `landing_id`, v.`type`, upper(coalesce(v.`currency`, '')) AS `currency`,
    count(*) AS `n`, total(v.`revenue`) AS `rev`, total(abs(v.`revenue`)) AS `abs`
  FROM `conversions` v WHERE NOT EXISTS (SELECT 1 FROM `clicks` c WHERE c.`id` = v.`click_row_id` AND c.`excluded` <> 0)
  GROUP BY 1, 2, 3, 4, 5, 6, 7
) v ON v.`hour` = r.`hour` AND v.`campaign_id` = r.`campaign_id` AND v.`source_id` = r.`source_id` AND v.`offer_id` = r.`offer_id`
  AND v.`landing_id` = r.`landing_id` AND v.`type` = r.`type`;
--> statement-breakpoint
-- Whatever a row holds beyond its raw conversions (a fix-up by hand, a click excluded after its conversion
-- was counted) stays counted, in the currency of the row's offer ('' without one): totals stay as they were.
INSERT INTO `conversion_stats_hourly_cur` (`hour`, `campaign_id`, `source_id`, `offer_id`, `landing_id`, `type`, `currency`, `conversions`, `revenue`, `revenue_abs`)
SELECT r.`hour`, r.`campaign_id`, r.`source_id`, r.`offer_id`, r.`landing_id`, r.`type`,
  upper(coalesce((SELECT o.`currency` FROM `offers` o WHERE o.`id` = r.`offer_id`), '')),
  r.`conversions` - coalesce(s.`n`, 0), r.`revenue` - coalesce(s.`rev`, 0), r.`revenue_abs` - coalesce(s.`abs`, 0)
FROM `conversion_stats_hourly` r LEFT JOIN (
  SELECT `hour`, `campaign_id`, `source_id`, `offer_id`, `landing_id`, `type`, sum(`conversions`) AS `n`, total(`revenue`) AS `rev`, total(`revenue_abs`) AS `abs`
  FROM `conversion_stats_hourly_cur` GROUP BY 1, 2, 3, 4, 5, 6
) s ON s.`hour` = r.`hour` AND s.`campaign_id` = r.`campaign_id` AND s.`source_id` = r.`source_id` AND s.`offer_id` = r.`offer_id`
  AND s.`landing_id` = r.`landing_id` AND s.`type` = r.`type`
WHERE r.`conversions` <> coalesce(s.`n`, 0) OR abs(r.`revenue` - coalesce(s.`rev`, 0)) > 1e-9 OR abs(r.`revenue_abs` - coalesce(s.`abs`, 0)) > 1e-9
ON CONFLICT (`hour`, `campaign_id`, `source_id`, `offer_id`, `landing_id`, `type`, `currency`) DO UPDATE SET
  conversions = conversions + excluded.conversions, revenue = revenue + excluded.revenue, revenue_abs = revenue_abs + excluded.revenue_abs;
--> statement-breakpoint
DROP TABLE `conversion_stats_hourly`;
--> statement-breakpoint
ALTER TABLE `conversion_stats_hourly_cur` RENAME TO `conversion_stats_hourly`;
--> statement-breakpoint
CREATE TABLE `conversion_stats_daily_cur` (
	`day` integer NOT NULL,
	`campaign_id` integer NOT NULL,
	`source_id` integer NOT NULL,
	`offer_id` integer NOT NULL,
	`landing_id` integer NOT NULL,
	`type` text NOT NULL,
	`currency` text DEFAULT '' NOT NULL,
	`conversions` integer DEFAULT 0 NOT NULL,
	`revenue` real DEFAULT 0 NOT NULL,
	`revenue_abs` real DEFAULT 0 NOT NULL,
	PRIMARY KEY(`day`, `campaign_id`, `source_id`, `offer_id`, `landing_id`, `type`, `currency`)
) WITHOUT ROWID;
--> statement-breakpoint
INSERT INTO `conversion_stats_daily_cur` (`day`, `campaign_id`, `source_id`, `offer_id`, `landing_id`, `type`, `currency`, `conversions`, `revenue`, `revenue_abs`)
SELECT `hour` - `hour` % 86400000, `campaign_id`, `source_id`, `offer_id`, `landing_id`, `type`, `currency`, sum(`conversions`), total(`revenue`), total(`revenue_abs`)
FROM `conversion_stats_hourly` GROUP BY 1, 2, 3, 4, 5, 6, 7;
--> statement-breakpoint
DROP TABLE `conversion_stats_daily`;
--> statement-breakpoint
ALTER TABLE `conversion_stats_daily_cur` RENAME TO `conversion_stats_daily`;
--> statement-breakpoint
-- The daily triggers of 0002, with the currency in the key.
CREATE TRIGGER `conversion_stats_daily_ins` AFTER INSERT ON `conversion_stats_hourly` BEGIN
  INSERT INTO `conversion_stats_daily` (`day`, `campaign_id`, `source_id`, `offer_id`, `landing_id`, `type`, `currency`, `conversions`, `revenue`, `revenue_abs`) VALUES (NEW.hour - NEW.hour % 86400000, NEW.campaign_id, NEW.source_id, NEW.offer_id, NEW.landing_id, NEW.type, NEW.currency, NEW.conversions, NEW.revenue, NEW.revenue_abs) ON CONFLICT (`day`, `campaign_id`, `source_id`, `offer_id`, `landing_id`, `type`, `currency`) DO UPDATE SET conversions = conversions + excluded.conversions, revenue = revenue + excluded.revenue, revenue_abs = revenue_abs + excluded.revenue_abs;
END;
--> statement-breakpoint
CREATE TRIGGER `conversion_stats_daily_upd` AFTER UPDATE ON `conversion_stats_hourly` BEGIN
  INSERT INTO `conversion_stats_daily` (`day`, `campaign_id`, `source_id`, `offer_id`, `landing_id`, `type`, `currency`, `conversions`, `revenue`, `revenue_abs`) VALUES (OLD.hour - OLD.hour % 86400000, OLD.campaign_id, OLD.source_id, OLD.offer_id, OLD.landing_id, OLD.type, OLD.currency, -OLD.conversions, -OLD.revenue, -OLD.revenue_abs) ON CONFLICT (`day`, `campaign_id`, `source_id`, `offer_id`, `landing_id`, `type`, `currency`) DO UPDATE SET conversions = conversions + excluded.conversions, revenue = revenue + excluded.revenue, revenue_abs = revenue_abs + excluded.revenue_abs;
  INSERT INTO `conversion_stats_daily` (`day`, `campaign_id`, `source_id`, `offer_id`, `landing_id`, `type`, `currency`, `conversions`, `revenue`, `revenue_abs`) VALUES (NEW.hour - NEW.hour % 86400000, NEW.campaign_id, NEW.source_id, NEW.offer_id, NEW.landing_id, NEW.type, NEW.currency, NEW.conversions, NEW.revenue, NEW.revenue_abs) ON CONFLICT (`day`, `campaign_id`, `source_id`, `offer_id`, `landing_id`, `type`, `currency`) DO UPDATE SET conversions = conversions + excluded.conversions, revenue = revenue + excluded.revenue, revenue_abs = revenue_abs + excluded.revenue_abs;
END;
--> statement-breakpoint
CREATE TRIGGER `conversion_stats_daily_del` AFTER DELETE ON `conversion_stats_hourly` BEGIN
  INSERT INTO `conversion_stats_daily` (`day`, `campaign_id`, `source_id`, `offer_id`, `landing_id`, `type`, `currency`, `conversions`, `revenue`, `revenue_abs`) VALUES (OLD.hour - OLD.hour % 86400000, OLD.campaign_id, OLD.source_id, OLD.offer_id, OLD.landing_id, OLD.type, OLD.currency, -OLD.conversions, -OLD.revenue, -OLD.revenue_abs) ON CONFLICT (`day`, `campaign_id`, `source_id`, `offer_id`, `landing_id`, `type`, `currency`) DO UPDATE SET conversions = conversions + excluded.conversions, revenue = revenue + excluded.revenue, revenue_abs = revenue_abs + excluded.revenue_abs;
END;
