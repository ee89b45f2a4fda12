ALTER TABLE `campaign_landings` ADD `position` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `campaign_offers` ADD `position` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- Existing links keep the order they were read in before (rowid, i.e. the order they were given).
UPDATE `campaign_offers` SET `position` = (SELECT count(*) FROM `campaign_offers` AS `o2` WHERE `o2`.`campaign_id` = `campaign_offers`.`campaign_id` AND `o2`.`rowid` < `campaign_offers`.`rowid`);--> statement-breakpoint
UPDATE `campaign_landings` SET `position` = (SELECT count(*) FROM `campaign_landings` AS `l2` WHERE `l2`.`campaign_id` = `campaign_landings`.`campaign_id` AND `l2`.`rowid` < `campaign_landings`.`rowid`);
