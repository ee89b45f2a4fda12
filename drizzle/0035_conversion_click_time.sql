-- Conversions carry their click's created_at (issue 31): the same column on both engines; Postgres' day
-- partitions of clicks need it to find a conversion's click in one partition (docs/postgres.md). Filled from the
-- click where it still exists; 0 where retention removed it.
ALTER TABLE `conversions` ADD `click_created_at` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
UPDATE `conversions` SET `click_created_at` = coalesce((SELECT `created_at` FROM `clicks` WHERE `clicks`.`id` = `conversions`.`click_row_id`), 0);
