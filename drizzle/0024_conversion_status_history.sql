-- The opt-in postback_status_updates mode: each row is a conversion's state BEFORE a change (a status update
-- moved it in place), or its state when a negative postback reversed it (reversal_id: the negative conversion).
CREATE TABLE `conversion_status_history` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`conversion_id` integer NOT NULL,
	`type` text NOT NULL,
	`status` text,
	`revenue` real NOT NULL,
	`reversal_id` integer,
	`changed_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `conversion_status_history_conversion_idx` ON `conversion_status_history` (`conversion_id`);
