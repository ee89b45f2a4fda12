CREATE TABLE `orders` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`source` text NOT NULL,
	`external_id` text NOT NULL,
	`status` text NOT NULL,
	`currency` text,
	`total` real DEFAULT 0 NOT NULL,
	`refunded` real DEFAULT 0 NOT NULL,
	`email` text,
	`click_id` text,
	`conversion_id` integer,
	`reversal_id` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `orders_source_external_idx` ON `orders` (`source`,`external_id`);--> statement-breakpoint
CREATE INDEX `orders_click_idx` ON `orders` (`click_id`);--> statement-breakpoint
CREATE INDEX `orders_created_idx` ON `orders` (`created_at`);--> statement-breakpoint
CREATE TABLE `webhook_events` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`source` text NOT NULL,
	`external_id` text,
	`dedup_key` text,
	`topic` text,
	`order_external_id` text,
	`signature` text NOT NULL,
	`outcome` text NOT NULL,
	`error` text,
	`click_id` text,
	`order_id` integer,
	`conversion_id` integer,
	`payload` text,
	`deliveries` integer DEFAULT 1 NOT NULL,
	`received_at` integer NOT NULL,
	`last_received_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `webhook_events_dedup_idx` ON `webhook_events` (`source`,`dedup_key`);--> statement-breakpoint
CREATE INDEX `webhook_events_received_idx` ON `webhook_events` (`received_at`);--> statement-breakpoint
CREATE INDEX `webhook_events_order_idx` ON `webhook_events` (`source`,`order_external_id`);