-- Cost models and cost updates (issue 29, docs/costs.md): a campaign's cost per 1,000 clicks (cost_model 'cpm'),
-- and the history of cost updates (the real spend of a day spread over its clicks: clicks.cost is replaced).
ALTER TABLE `campaigns` ADD `cpm` real DEFAULT 0 NOT NULL;
--> statement-breakpoint
CREATE TABLE `cost_updates` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`campaign_id` integer NOT NULL,
	`day` text NOT NULL,
	`time_zone` text NOT NULL,
	`sub_name` text,
	`sub_value` text,
	`amount` real NOT NULL,
	`currency` text NOT NULL,
	`clicks` integer NOT NULL,
	`created_by` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `cost_updates_campaign_idx` ON `cost_updates` (`campaign_id`,`day`);
--> statement-breakpoint
-- revshare (cost_model 'revshare'): the campaign's share of its conversions' revenue, recorded with each conversion
-- (conversions.cost) and kept in the conversion rollups beside revenue: `cost` as `revenue` (raw), `cost_abs` as
-- `revenue_abs`, so reports apply a type's include and negative flags to cost as to revenue (a refund takes its
-- cost back out). In the conversion's currency, like its revenue.
ALTER TABLE `campaigns` ADD `revshare_percent` real DEFAULT 0 NOT NULL;
--> statement-breakpoint
ALTER TABLE `conversions` ADD `cost` real DEFAULT 0 NOT NULL;
--> statement-breakpoint
ALTER TABLE `conversion_stats_hourly` ADD `cost` real DEFAULT 0 NOT NULL;
--> statement-breakpoint
ALTER TABLE `conversion_stats_hourly` ADD `cost_abs` real DEFAULT 0 NOT NULL;
--> statement-breakpoint
ALTER TABLE `conversion_stats_daily` ADD `cost` real DEFAULT 0 NOT NULL;
--> statement-breakpoint
ALTER TABLE `conversion_stats_daily` ADD `cost_abs` real DEFAULT 0 NOT NULL;
--> statement-breakpoint
ALTER TABLE `conversion_country_hourly` ADD `cost` real DEFAULT 0 NOT NULL;
--> statement-breakpoint
ALTER TABLE `conversion_country_hourly` ADD `cost_abs` real DEFAULT 0 NOT NULL;
--> statement-breakpoint
ALTER TABLE `conversion_country_daily` ADD `cost` real DEFAULT 0 NOT NULL;
--> statement-breakpoint
ALTER TABLE `conversion_country_daily` ADD `cost_abs` real DEFAULT 0 NOT NULL;
--> statement-breakpoint
ALTER TABLE `conversion_path_hourly` ADD `cost` real DEFAULT 0 NOT NULL;
--> statement-breakpoint
ALTER TABLE `conversion_path_hourly` ADD `cost_abs` real DEFAULT 0 NOT NULL;
--> statement-breakpoint
ALTER TABLE `conversion_path_daily` ADD `cost` real DEFAULT 0 NOT NULL;
--> statement-breakpoint
ALTER TABLE `conversion_path_daily` ADD `cost_abs` real DEFAULT 0 NOT NULL;
--> statement-breakpoint
ALTER TABLE `conversion_country_total_daily` ADD `cost` real DEFAULT 0 NOT NULL;
--> statement-breakpoint
ALTER TABLE `conversion_country_total_daily` ADD `cost_abs` real DEFAULT 0 NOT NULL;
--> statement-breakpoint
-- The daily triggers of 0025 and 0028, with the cost columns.
DROP TRIGGER `conversion_stats_daily_ins`;
--> statement-breakpoint
CREATE TRIGGER `conversion_stats_daily_ins` AFTER INSERT ON `conversion_stats_hourly` BEGIN
  INSERT INTO `conversion_stats_daily` (`day`, `campaign_id`, `source_id`, `offer_id`, `landing_id`, `type`, `currency`, `conversions`, `revenue`, `revenue_abs`, `cost`, `cost_abs`) VALUES (NEW.hour - NEW.hour % 86400000, NEW.campaign_id, NEW.source_id, NEW.offer_id, NEW.landing_id, NEW.type, NEW.currency, NEW.conversions, NEW.revenue, NEW.revenue_abs, NEW.cost, NEW.cost_abs) ON CONFLICT (`day`, `campaign_id`, `source_id`, `offer_id`, `landing_id`, `type`, `currency`) DO UPDATE SET conversions = conversions + excluded.conversions, revenue = revenue + excluded.revenue, revenue_abs = revenue_abs + excluded.revenue_abs, cost = cost + excluded.cost, cost_abs = cost_abs + excluded.cost_abs;
END;
--> statement-breakpoint
DROP TRIGGER `conversion_stats_daily_upd`;
--> statement-breakpoint
CREATE TRIGGER `conversion_stats_daily_upd` AFTER UPDATE ON `conversion_stats_hourly` BEGIN
  INSERT INTO `conversion_stats_daily` (`day`, `campaign_id`, `source_id`, `offer_id`, `landing_id`, `type`, `currency`, `conversions`, `revenue`, `revenue_abs`, `cost`, `cost_abs`) VALUES (OLD.hour - OLD.hour % 86400000, OLD.campaign_id, OLD.source_id, OLD.offer_id, OLD.landing_id, OLD.type, OLD.currency, -OLD.conversions, -OLD.revenue, -OLD.revenue_abs, -OLD.cost, -OLD.cost_abs) ON CONFLICT (`day`, `campaign_id`, `source_id`, `offer_id`, `landing_id`, `type`, `currency`) DO UPDATE SET conversions = conversions + excluded.conversions, revenue = revenue + excluded.revenue, revenue_abs = revenue_abs + excluded.revenue_abs, cost = cost + excluded.cost, cost_abs = cost_abs + excluded.cost_abs;
  INSERT INTO `conversion_stats_daily` (`day`, `campaign_id`, `source_id`, `offer_id`, `landing_id`, `type`, `currency`, `conversions`, `revenue`, `revenue_abs`, `cost`, `cost_abs`) VALUES (NEW.hour - NEW.hour % 86400000, NEW.campaign_id, NEW.source_id, NEW.offer_id, NEW.landing_id, NEW.type, NEW.currency, NEW.conversions, NEW.revenue, NEW.revenue_abs, NEW.cost, NEW.cost_abs) ON CONFLICT (`day`, `campaign_id`, `source_id`, `offer_id`, `landing_id`, `type`, `currency`) DO UPDATE SET conversions = conversions + excluded.conversions, revenue = revenue + excluded.revenue, revenue_abs = revenue_abs + excluded.revenue_abs, cost = cost + excluded.cost, cost_abs = cost_abs + excluded.cost_abs;
END;
--> statement-breakpoint
DROP TRIGGER `conversion_stats_daily_del`;
--> statement-breakpoint
CREATE TRIGGER `conversion_stats_daily_del` AFTER DELETE ON `conversion_stats_hourly` BEGIN
  INSERT INTO `conversion_stats_daily` (`day`, `campaign_id`, `source_id`, `offer_id`, `landing_id`, `type`, `currency`, `conversions`, `revenue`, `revenue_abs`, `cost`, `cost_abs`) VALUES (OLD.hour - OLD.hour % 86400000, OLD.campaign_id, OLD.source_id, OLD.offer_id, OLD.landing_id, OLD.type, OLD.currency, -OLD.conversions, -OLD.revenue, -OLD.revenue_abs, -OLD.cost, -OLD.cost_abs) ON CONFLICT (`day`, `campaign_id`, `source_id`, `offer_id`, `landing_id`, `type`, `currency`) DO UPDATE SET conversions = conversions + excluded.conversions, revenue = revenue + excluded.revenue, revenue_abs = revenue_abs + excluded.revenue_abs, cost = cost + excluded.cost, cost_abs = cost_abs + excluded.cost_abs;
END;
--> statement-breakpoint
DROP TRIGGER `conversion_country_daily_ins`;
--> statement-breakpoint
CREATE TRIGGER `conversion_country_daily_ins` AFTER INSERT ON `conversion_country_hourly` BEGIN
  INSERT INTO `conversion_country_daily` (`day`, `campaign_id`, `country`, `type`, `currency`, `conversions`, `revenue`, `revenue_abs`, `cost`, `cost_abs`) VALUES (NEW.hour - NEW.hour % 86400000, NEW.campaign_id, NEW.country, NEW.type, NEW.currency, NEW.conversions, NEW.revenue, NEW.revenue_abs, NEW.cost, NEW.cost_abs) ON CONFLICT (`day`, `campaign_id`, `country`, `type`, `currency`) DO UPDATE SET conversions = conversions + excluded.conversions, revenue = revenue + excluded.revenue, revenue_abs = revenue_abs + excluded.revenue_abs, cost = cost + excluded.cost, cost_abs = cost_abs + excluded.cost_abs;
END;
--> statement-breakpoint
DROP TRIGGER `conversion_country_daily_upd`;
--> statement-breakpoint
CREATE TRIGGER `conversion_country_daily_upd` AFTER UPDATE ON `conversion_country_hourly` BEGIN
  INSERT INTO `conversion_country_daily` (`day`, `campaign_id`, `country`, `type`, `currency`, `conversions`, `revenue`, `revenue_abs`, `cost`, `cost_abs`) VALUES (OLD.hour - OLD.hour % 86400000, OLD.campaign_id, OLD.country, OLD.type, OLD.currency, -OLD.conversions, -OLD.revenue, -OLD.revenue_abs, -OLD.cost, -OLD.cost_abs) ON CONFLICT (`day`, `campaign_id`, `country`, `type`, `currency`) DO UPDATE SET conversions = conversions + excluded.conversions, revenue = revenue + excluded.revenue, revenue_abs = revenue_abs + excluded.revenue_abs, cost = cost + excluded.cost, cost_abs = cost_abs + excluded.cost_abs;
  INSERT INTO `conversion_country_daily` (`day`, `campaign_id`, `country`, `type`, `currency`, `conversions`, `revenue`, `revenue_abs`, `cost`, `cost_abs`) VALUES (NEW.hour - NEW.hour % 86400000, NEW.campaign_id, NEW.country, NEW.type, NEW.currency, NEW.conversions, NEW.revenue, NEW.revenue_abs, NEW.cost, NEW.cost_abs) ON CONFLICT (`day`, `campaign_id`, `country`, `type`, `currency`) DO UPDATE SET conversions = conversions + excluded.conversions, revenue = revenue + excluded.revenue, revenue_abs = revenue_abs + excluded.revenue_abs, cost = cost + excluded.cost, cost_abs = cost_abs + excluded.cost_abs;
END;
--> statement-breakpoint
DROP TRIGGER `conversion_country_daily_del`;
--> statement-breakpoint
CREATE TRIGGER `conversion_country_daily_del` AFTER DELETE ON `conversion_country_hourly` BEGIN
  INSERT INTO `conversion_country_daily` (`day`, `campaign_id`, `country`, `type`, `currency`, `conversions`, `revenue`, `revenue_abs`, `cost`, `cost_abs`) VALUES (OLD.hour - OLD.hour % 86400000, OLD.campaign_id, OLD.country, OLD.type, OLD.currency, -OLD.conversions, -OLD.revenue, -OLD.revenue_abs, -OLD.cost, -OLD.cost_abs) ON CONFLICT (`day`, `campaign_id`, `country`, `type`, `currency`) DO UPDATE SET conversions = conversions + excluded.conversions, revenue = revenue + excluded.revenue, revenue_abs = revenue_abs + excluded.revenue_abs, cost = cost + excluded.cost, cost_abs = cost_abs + excluded.cost_abs;
END;
--> statement-breakpoint
DROP TRIGGER `conversion_path_daily_ins`;
--> statement-breakpoint
CREATE TRIGGER `conversion_path_daily_ins` AFTER INSERT ON `conversion_path_hourly` BEGIN
  INSERT INTO `conversion_path_daily` (`day`, `campaign_id`, `path_id`, `type`, `currency`, `conversions`, `revenue`, `revenue_abs`, `cost`, `cost_abs`) VALUES (NEW.hour - NEW.hour % 86400000, NEW.campaign_id, NEW.path_id, NEW.type, NEW.currency, NEW.conversions, NEW.revenue, NEW.revenue_abs, NEW.cost, NEW.cost_abs) ON CONFLICT (`day`, `campaign_id`, `path_id`, `type`, `currency`) DO UPDATE SET conversions = conversions + excluded.conversions, revenue = revenue + excluded.revenue, revenue_abs = revenue_abs + excluded.revenue_abs, cost = cost + excluded.cost, cost_abs = cost_abs + excluded.cost_abs;
END;
--> statement-breakpoint
DROP TRIGGER `conversion_path_daily_upd`;
--> statement-breakpoint
CREATE TRIGGER `conversion_path_daily_upd` AFTER UPDATE ON `conversion_path_hourly` BEGIN
  INSERT INTO `conversion_path_daily` (`day`, `campaign_id`, `path_id`, `type`, `currency`, `conversions`, `revenue`, `revenue_abs`, `cost`, `cost_abs`) VALUES (OLD.hour - OLD.hour % 86400000, OLD.campaign_id, OLD.path_id, OLD.type, OLD.currency, -OLD.conversions, -OLD.revenue, -OLD.revenue_abs, -OLD.cost, -OLD.cost_abs) ON CONFLICT (`day`, `campaign_id`, `path_id`, `type`, `currency`) DO UPDATE SET conversions = conversions + excluded.conversions, revenue = revenue + excluded.revenue, revenue_abs = revenue_abs + excluded.revenue_abs, cost = cost + excluded.cost, cost_abs = cost_abs + excluded.cost_abs;
  INSERT INTO `conversion_path_daily` (`day`, `campaign_id`, `path_id`, `type`, `currency`, `conversions`, `revenue`, `revenue_abs`, `cost`, `cost_abs`) VALUES (NEW.hour - NEW.hour % 86400000, NEW.campaign_id, NEW.path_id, NEW.type, NEW.currency, NEW.conversions, NEW.revenue, NEW.revenue_abs, NEW.cost, NEW.cost_abs) ON CONFLICT (`day`, `campaign_id`, `path_id`, `type`, `currency`) DO UPDATE SET conversions = conversions + excluded.conversions, revenue = revenue + excluded.revenue, revenue_abs = revenue_abs + excluded.revenue_abs, cost = cost + excluded.cost, cost_abs = cost_abs + excluded.cost_abs;
END;
--> statement-breakpoint
DROP TRIGGER `conversion_path_daily_del`;
--> statement-breakpoint
CREATE TRIGGER `conversion_path_daily_del` AFTER DELETE ON `conversion_path_hourly` BEGIN
  INSERT INTO `conversion_path_daily` (`day`, `campaign_id`, `path_id`, `type`, `currency`, `conversions`, `revenue`, `revenue_abs`, `cost`, `cost_abs`) VALUES (OLD.hour - OLD.hour % 86400000, OLD.campaign_id, OLD.path_id, OLD.type, OLD.currency, -OLD.conversions, -OLD.revenue, -OLD.revenue_abs, -OLD.cost, -OLD.cost_abs) ON CONFLICT (`day`, `campaign_id`, `path_id`, `type`, `currency`) DO UPDATE SET conversions = conversions + excluded.conversions, revenue = revenue + excluded.revenue, revenue_abs = revenue_abs + excluded.revenue_abs, cost = cost + excluded.cost, cost_abs = cost_abs + excluded.cost_abs;
END;
