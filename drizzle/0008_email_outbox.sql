CREATE TABLE `email_outbox` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`list_id` integer,
	`subscriber_id` integer,
	`to_email` text NOT NULL,
	`subject` text NOT NULL,
	`text_body` text NOT NULL,
	`html_body` text,
	`status` text NOT NULL,
	`job_id` integer,
	`message_id` text,
	`result` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `email_outbox_status_idx` ON `email_outbox` (`status`,`id`);--> statement-breakpoint
CREATE INDEX `email_outbox_to_idx` ON `email_outbox` (`to_email`);