-- Hand-written (drizzle-kit generated the table shapes; it models neither WITHOUT ROWID nor this backfill).
-- click_index becomes one WITHOUT ROWID B-tree keyed by (bucket, first 32 bits of the click_id, row),
-- and its watermark moves to click_index_state: every click row up to indexed_through is indexed.
CREATE TABLE `click_index_state` (
	`id` integer PRIMARY KEY NOT NULL,
	`indexed_through` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `__new_click_index` (
	`bucket` integer NOT NULL,
	`key` integer NOT NULL,
	`click_row` integer NOT NULL,
	PRIMARY KEY(`bucket`, `key`, `click_row`)
) WITHOUT ROWID;
--> statement-breakpoint
INSERT INTO `__new_click_index` (`bucket`, `key`, `click_row`)
SELECT o.`bucket`, ((instr('0123456789abcdef', substr(lower(o.`click_id`), 1, 1)) - 1) << 28) | ((instr('0123456789abcdef', substr(lower(o.`click_id`), 2, 1)) - 1) << 24) | ((instr('0123456789abcdef', substr(lower(o.`click_id`), 3, 1)) - 1) << 20) | ((instr('0123456789abcdef', substr(lower(o.`click_id`), 4, 1)) - 1) << 16) | ((instr('0123456789abcdef', substr(lower(o.`click_id`), 5, 1)) - 1) << 12) | ((instr('0123456789abcdef', substr(lower(o.`click_id`), 6, 1)) - 1) << 8) | ((instr('0123456789abcdef', substr(lower(o.`click_id`), 7, 1)) - 1) << 4) | ((instr('0123456789abcdef', substr(lower(o.`click_id`), 8, 1)) - 1) << 0), o.`click_row` FROM `click_index` o ORDER BY 1, 2, 3;
--> statement-breakpoint
INSERT INTO `click_index_state` (`id`, `indexed_through`) SELECT 1, coalesce(max(`click_row`), 0) FROM `click_index`;
--> statement-breakpoint
DROP TABLE `click_index`;
--> statement-breakpoint
ALTER TABLE `__new_click_index` RENAME TO `click_index`;
