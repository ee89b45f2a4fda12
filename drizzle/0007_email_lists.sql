CREATE TABLE `email_lists` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `email_subscribers` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`list_id` integer NOT NULL,
	`email` text NOT NULL,
	`name` text,
	`fields` text DEFAULT '{}' NOT NULL,
	`source` text NOT NULL,
	`status` text DEFAULT 'active' NOT NULL,
	`consent_at` integer NOT NULL,
	`consent_ip` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`list_id`) REFERENCES `email_lists`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `email_subscribers_list_email_idx` ON `email_subscribers` (`list_id`,`email`);--> statement-breakpoint
CREATE INDEX `email_subscribers_email_idx` ON `email_subscribers` (`email`);--> statement-breakpoint
-- Until now no list existed, so every landing's email_list_id pointed at nothing: cleared (svc logs how many).
UPDATE `landings` SET `email_list_id` = NULL WHERE `email_list_id` IS NOT NULL;
