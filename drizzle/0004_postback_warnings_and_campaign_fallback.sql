ALTER TABLE `campaigns` ADD `fallback_url` text;--> statement-breakpoint
ALTER TABLE `postback_errors` ADD `conversion_id` integer;