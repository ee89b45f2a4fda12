CREATE TABLE `mail_webhook_tokens` (
	`provider` text NOT NULL,
	`token` text NOT NULL,
	`body_hash` text NOT NULL,
	`expires_at` integer NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`provider`, `token`)
);
--> statement-breakpoint
CREATE INDEX `mail_webhook_tokens_expires_idx` ON `mail_webhook_tokens` (`expires_at`);
