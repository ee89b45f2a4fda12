ALTER TABLE `orders` ADD `counted` real;--> statement-breakpoint
ALTER TABLE `orders` ADD `counted_currency` text;--> statement-breakpoint
ALTER TABLE `orders` ADD `reversed` real DEFAULT 0 NOT NULL;--> statement-breakpoint
UPDATE `orders` SET `counted` = coalesce((SELECT `revenue` FROM `conversions` WHERE `conversions`.`id` = `orders`.`conversion_id`), `total`),
  `counted_currency` = coalesce((SELECT `currency` FROM `conversions` WHERE `conversions`.`id` = `orders`.`conversion_id`), `currency`)
  WHERE `conversion_id` IS NOT NULL;--> statement-breakpoint
UPDATE `orders` SET `reversed` = CASE WHEN `reversal_id` IS NOT NULL THEN `counted` ELSE min(`counted`, `refunded`) END
  WHERE `conversion_id` IS NOT NULL;
