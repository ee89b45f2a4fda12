CREATE TABLE `mail_events` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`provider` text NOT NULL,
	`event_key` text NOT NULL,
	`kind` text NOT NULL,
	`hard` integer DEFAULT false NOT NULL,
	`email` text NOT NULL,
	`occurred_at` integer NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `mail_events_key_idx` ON `mail_events` (`provider`,`event_key`);--> statement-breakpoint
CREATE INDEX `mail_events_email_idx` ON `mail_events` (`email`);