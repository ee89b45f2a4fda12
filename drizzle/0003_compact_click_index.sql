-- Hand-written (drizzle-kit generated the table shapes; it models neither WITHOUT ROWID nor the reset).
-- click_index becomes one WITHOUT ROWID B-tree keyed by (bucket, first 32 bits of the click_id, row),
-- and its watermark moves to click_index_state: every click row up to indexed_through is indexed.
-- The old index is dropped, not converted: with the watermark at 0 the click store loads the clicks into
-- its tail and writes their full buckets when it starts, so the key formula lives in TypeScript only
-- (src/tracking/store/click-index.ts).
CREATE TABLE `click_index_state` (
	`id` integer PRIMARY KEY NOT NULL,
	`indexed_through` integer NOT NULL
);
--> statement-breakpoint
INSERT INTO `click_index_state` (`id`, `indexed_through`) VALUES (1, 0);
--> statement-breakpoint
DROP TABLE `click_index`;
--> statement-breakpoint
CREATE TABLE `click_index` (
	`bucket` integer NOT NULL,
	`key` integer NOT NULL,
	`click_row` integer NOT NULL,
	PRIMARY KEY(`bucket`, `key`, `click_row`)
) WITHOUT ROWID;
