-- Hand-written (issue 31; docs/postgres.md): the click-id index of every day partition becomes a hash index.
-- A B-tree on (click_id, created_at) takes a random UUID per click: each insert descends the tree and compares
-- 36-character keys on every level, into a random leaf. A hash index keeps a 4-byte hash code per click, one
-- bucket page per insert, and answers the only question asked of it (click_id = $1, in the day the id names:
-- src/tracking/store/pg-partitions.ts). Measured with the click store's group commit (docs/performance.md,
-- session 21): ~12 % less Postgres CPU per click.
--
-- A hash index cannot be UNIQUE. The unique B-tree guarded only (click_id, created_at) (a partitioned table's
-- unique keys must hold the partition key), and click ids are UUID v4 from the CSPRNG: svc never relied on it.
--
-- Cost of the upgrade: the old index is dropped at once; the new one is built over every stored click in the
-- start-up transaction (src/db/pg/migrate.ts), so instances start serving when it is built (clicks are refused
-- until then). Built per partition; measured rate in docs/postgres.md.
DROP INDEX "clicks_click_id_idx";--> statement-breakpoint
CREATE INDEX "clicks_click_id_idx" ON "clicks" USING hash ("click_id");
