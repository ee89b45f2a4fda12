CREATE TABLE `agent_audit` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`token_id` integer,
	`token_name` text,
	`surface` text NOT NULL,
	`tool` text NOT NULL,
	`arguments` text,
	`outcome` text NOT NULL,
	`error` text,
	`duration_ms` integer NOT NULL,
	`ip` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `agent_audit_created_idx` ON `agent_audit` (`created_at`);--> statement-breakpoint
CREATE INDEX `agent_audit_token_idx` ON `agent_audit` (`token_id`,`id`);--> statement-breakpoint
CREATE TABLE `agent_confirmations` (
	`key` text PRIMARY KEY NOT NULL,
	`token_id` integer NOT NULL,
	`tool` text NOT NULL,
	`state` text NOT NULL,
	`result` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `agent_confirmations_created_idx` ON `agent_confirmations` (`created_at`);--> statement-breakpoint
CREATE TABLE `agent_tokens` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`token_hash` text NOT NULL,
	`token_hint` text NOT NULL,
	`scopes` text NOT NULL,
	`rate_default` integer,
	`rate_ai` integer,
	`created_by` integer,
	`created_at` integer NOT NULL,
	`expires_at` integer,
	`revoked_at` integer,
	`last_used_at` integer,
	`last_used_ip` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `agent_tokens_hash_idx` ON `agent_tokens` (`token_hash`);