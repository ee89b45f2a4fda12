CREATE TABLE `payment_accounts` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`type` text NOT NULL,
	`name` text NOT NULL,
	`account_id` text NOT NULL,
	`webhook_secret` text,
	`api_key` text,
	`client_id` text,
	`client_secret` text,
	`webhook_registered_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `payment_accounts_account_id_unique` ON `payment_accounts` (`account_id`);--> statement-breakpoint
CREATE TABLE `products` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`price` real NOT NULL,
	`currency` text NOT NULL,
	`offer_id` integer,
	`email_list_id` integer,
	`payment_account_id` integer,
	`active` integer DEFAULT 1 NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `refunds` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`order_id` integer NOT NULL,
	`source` text NOT NULL,
	`external_id` text NOT NULL,
	`amount` real NOT NULL,
	`currency` text,
	`conversion_id` integer,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `refunds_source_external_idx` ON `refunds` (`source`,`external_id`);--> statement-breakpoint
CREATE INDEX `refunds_order_idx` ON `refunds` (`order_id`);--> statement-breakpoint
CREATE TABLE `subscriptions` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`source` text NOT NULL,
	`external_id` text NOT NULL,
	`payment_account_id` integer,
	`customer_external_id` text,
	`email` text,
	`status` text NOT NULL,
	`click_id` text,
	`product_id` integer,
	`current_period_end` integer,
	`canceled_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `subscriptions_source_external_idx` ON `subscriptions` (`source`,`external_id`);--> statement-breakpoint
CREATE INDEX `subscriptions_email_idx` ON `subscriptions` (`email`);--> statement-breakpoint
ALTER TABLE `orders` ADD `product_id` integer;--> statement-breakpoint
ALTER TABLE `orders` ADD `payment_account_id` integer;--> statement-breakpoint
CREATE INDEX `orders_email_idx` ON `orders` (`email`);