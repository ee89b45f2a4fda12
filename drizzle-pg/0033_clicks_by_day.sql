-- Hand-written (issue 31; docs/postgres.md): clicks becomes a table partitioned by UTC day on created_at.
-- Drizzle cannot express partitioning: src/db/schema/clicks.ts describes the columns, keys and index names, this
-- file the partitions. Every partition lives in the schema click_days (d20261127 = that UTC day, clicks_default
-- = the safety net), so the public schema lists one table, clicks, as before.
--
-- The upgrade copies the existing rows: the old table is renamed, the partitioned one created with the same
-- columns in the same order (LIKE), one partition per UTC day that holds rows, then the rows copied and only
-- then the keys and indexes built (a bulk build per partition instead of an index insert per row). The whole
-- migration runs in the start-up transaction (src/db/pg/migrate.ts): every instance waits for it, clicks are
-- refused meanwhile (no instance serves before its migrations ran). Cost per million rows: docs/postgres.md.
--
-- A unique index on a partitioned table must hold the partition key: the key is (id, created_at), click_id is
-- unique per (click_id, created_at). Both stay unique in practice: ids come from one sequence, click ids are
-- UUIDs. Identity columns are not allowed on a partitioned table before Postgres 17: id takes its default from
-- a plain sequence owned by the column (pg_get_serial_sequence finds it; svc migrate --to resets it).
-- Conversions carry their click's created_at (the same column on SQLite: drizzle/0035): a join from a conversion
-- to its click by row id names the click's day too, so it probes one partition. Filled before the copy, while
-- clicks is one table; 0 where retention removed the click.
ALTER TABLE "conversions" ADD COLUMN "click_created_at" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
UPDATE "conversions" v SET "click_created_at" = c."created_at" FROM "clicks" c WHERE c."id" = v."click_row_id";--> statement-breakpoint
ALTER TABLE "clicks" RENAME TO "clicks_v0";--> statement-breakpoint
ALTER SEQUENCE "clicks_id_seq" RENAME TO "clicks_v0_id_seq";--> statement-breakpoint
CREATE SEQUENCE "clicks_id_seq" AS bigint;--> statement-breakpoint
-- New ids continue above every id handed out so far (the old sequence may be ahead of max(id): rolled back batches).
SELECT setval('"clicks_id_seq"', GREATEST(x, 1), x > 0)
  FROM (SELECT GREATEST(COALESCE(pg_sequence_last_value('"clicks_v0_id_seq"'), 0), COALESCE((SELECT max(id) FROM "clicks_v0"), 0)) AS x) s;--> statement-breakpoint
CREATE TABLE "clicks" (LIKE "clicks_v0" INCLUDING DEFAULTS) PARTITION BY RANGE ("created_at");--> statement-breakpoint
ALTER TABLE "clicks" ALTER COLUMN "id" SET DEFAULT nextval('"clicks_id_seq"');--> statement-breakpoint
ALTER SEQUENCE "clicks_id_seq" OWNED BY "clicks"."id";--> statement-breakpoint
CREATE SCHEMA IF NOT EXISTS "click_days";--> statement-breakpoint
-- The safety net: a click of a day without its partition (the ahead creation failed for days, an import of old
-- clicks) still commits. click_days.ensure() moves such rows into their day's partition when it creates it.
CREATE TABLE "click_days"."clicks_default" PARTITION OF "clicks" DEFAULT;--> statement-breakpoint
-- Creates the partition of every UTC day in `days` (epoch ms, any time of the day) that has none yet, and, with
-- `drain` > 0, of up to `drain` days that have clicks waiting in the default partition; returns how many it
-- created. Rows of such a day waiting in the default partition move into the new partition in the same
-- transaction. Created standalone and ATTACHed (SHARE UPDATE EXCLUSIVE on clicks: clicks keep committing
-- meanwhile) rather than CREATE TABLE ... PARTITION OF (ACCESS EXCLUSIVE on clicks). The advisory lock, taken
-- before anything is read, serialises instances doing it at once: the second finds the partitions made.
CREATE FUNCTION "click_days"."ensure"(days bigint[], drain integer DEFAULT 0) RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  d bigint;
  part text;
  made integer := 0;
BEGIN
  PERFORM pg_advisory_xact_lock(1668049764); -- 'clkd'; src/tracking/store/pg-partitions.ts takes it too
  IF drain > 0 THEN
    days := days || ARRAY(SELECT DISTINCT created_at - (((created_at % 86400000) + 86400000) % 86400000)
      FROM click_days.clicks_default LIMIT drain);
  END IF;
  FOR d IN SELECT DISTINCT x - (((x % 86400000) + 86400000) % 86400000) FROM unnest(days) AS x ORDER BY 1 LOOP
    part := 'd' || to_char(to_timestamp(d / 1000.0) AT TIME ZONE 'UTC', 'YYYYMMDD');
    CONTINUE WHEN to_regclass(format('click_days.%I', part)) IS NOT NULL;
    EXECUTE format('CREATE TABLE click_days.%I (LIKE public.clicks INCLUDING DEFAULTS)', part);
    EXECUTE format('WITH moved AS (DELETE FROM click_days.clicks_default WHERE created_at >= %s AND created_at < %s RETURNING *) '
      'INSERT INTO click_days.%I SELECT * FROM moved', d, d + 86400000, part);
    EXECUTE format('ALTER TABLE public.clicks ATTACH PARTITION click_days.%I FOR VALUES FROM (%s) TO (%s)', part, d, d + 86400000);
    made := made + 1;
  END LOOP;
  RETURN made;
END $$;--> statement-breakpoint
-- A partition for every day that has clicks, and for yesterday, today and the next 7 days (the running
-- instances keep creating days ahead: src/tracking/store/pg-partitions.ts).
SELECT "click_days"."ensure"(ARRAY(
  SELECT DISTINCT created_at - (((created_at % 86400000) + 86400000) % 86400000) FROM "clicks_v0"
  UNION SELECT (floor(extract(epoch FROM now()) * 1000)::bigint) + g * 86400000 FROM generate_series(-1, 7) AS g
));--> statement-breakpoint
INSERT INTO "clicks" SELECT * FROM "clicks_v0";--> statement-breakpoint
DROP TABLE "clicks_v0";--> statement-breakpoint
ALTER TABLE "clicks" ADD CONSTRAINT "clicks_id_created_at_pk" PRIMARY KEY ("id", "created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "clicks_click_id_idx" ON "clicks" USING btree ("click_id", "created_at");--> statement-breakpoint
CREATE INDEX "clicks_campaign_created_idx" ON "clicks" USING btree ("campaign_id", "created_at");--> statement-breakpoint
CREATE INDEX "clicks_created_idx" ON "clicks" USING btree ("created_at");
