-- Issue 31: the click rollups striped like the conversion rollups (0015). Click batches committing side by side
-- (several per instance, and several instances) take different shards, so batches of one campaign no longer wait
-- for each other's COMMIT on the same hourly, daily and country-total rows. Readers SUM over the shards already.
-- Existing rows become shard 0 (a constant default: no table rewrite; the new primary keys are built once, under
-- the ACCESS EXCLUSIVE lock of ALTER TABLE, in the migration's transaction).
ALTER TABLE "click_stats_hourly" ADD COLUMN "shard" smallint DEFAULT 0 NOT NULL;
--> statement-breakpoint
ALTER TABLE "click_stats_daily" ADD COLUMN "shard" smallint DEFAULT 0 NOT NULL;
--> statement-breakpoint
ALTER TABLE "click_country_hourly" ADD COLUMN "shard" smallint DEFAULT 0 NOT NULL;
--> statement-breakpoint
ALTER TABLE "click_country_daily" ADD COLUMN "shard" smallint DEFAULT 0 NOT NULL;
--> statement-breakpoint
ALTER TABLE "click_path_hourly" ADD COLUMN "shard" smallint DEFAULT 0 NOT NULL;
--> statement-breakpoint
ALTER TABLE "click_path_daily" ADD COLUMN "shard" smallint DEFAULT 0 NOT NULL;
--> statement-breakpoint
ALTER TABLE "click_country_total_daily" ADD COLUMN "shard" smallint DEFAULT 0 NOT NULL;
--> statement-breakpoint
ALTER TABLE "click_stats_hourly" DROP CONSTRAINT "click_stats_hourly_hour_campaign_id_source_id_offer_id_landing_id_pk";
--> statement-breakpoint
ALTER TABLE "click_stats_hourly" ADD CONSTRAINT "click_stats_hourly_hour_campaign_id_source_id_offer_id_landing_id_shard_pk" PRIMARY KEY("hour","campaign_id","source_id","offer_id","landing_id","shard");
--> statement-breakpoint
ALTER TABLE "click_stats_daily" DROP CONSTRAINT "click_stats_daily_day_campaign_id_source_id_offer_id_landing_id_pk";
--> statement-breakpoint
ALTER TABLE "click_stats_daily" ADD CONSTRAINT "click_stats_daily_day_campaign_id_source_id_offer_id_landing_id_shard_pk" PRIMARY KEY("day","campaign_id","source_id","offer_id","landing_id","shard");
--> statement-breakpoint
ALTER TABLE "click_country_hourly" DROP CONSTRAINT "click_country_hourly_hour_campaign_id_country_pk";
--> statement-breakpoint
ALTER TABLE "click_country_hourly" ADD CONSTRAINT "click_country_hourly_hour_campaign_id_country_shard_pk" PRIMARY KEY("hour","campaign_id","country","shard");
--> statement-breakpoint
ALTER TABLE "click_country_daily" DROP CONSTRAINT "click_country_daily_day_campaign_id_country_pk";
--> statement-breakpoint
ALTER TABLE "click_country_daily" ADD CONSTRAINT "click_country_daily_day_campaign_id_country_shard_pk" PRIMARY KEY("day","campaign_id","country","shard");
--> statement-breakpoint
ALTER TABLE "click_path_hourly" DROP CONSTRAINT "click_path_hourly_hour_campaign_id_path_id_pk";
--> statement-breakpoint
ALTER TABLE "click_path_hourly" ADD CONSTRAINT "click_path_hourly_hour_campaign_id_path_id_shard_pk" PRIMARY KEY("hour","campaign_id","path_id","shard");
--> statement-breakpoint
ALTER TABLE "click_path_daily" DROP CONSTRAINT "click_path_daily_day_campaign_id_path_id_pk";
--> statement-breakpoint
ALTER TABLE "click_path_daily" ADD CONSTRAINT "click_path_daily_day_campaign_id_path_id_shard_pk" PRIMARY KEY("day","campaign_id","path_id","shard");
--> statement-breakpoint
ALTER TABLE "click_country_total_daily" DROP CONSTRAINT "click_country_total_daily_day_country_pk";
--> statement-breakpoint
ALTER TABLE "click_country_total_daily" ADD CONSTRAINT "click_country_total_daily_day_country_shard_pk" PRIMARY KEY("day","country","shard");
--> statement-breakpoint
-- The daily triggers of 0010 and 0025 again: each shard's daily row = the sum of that shard's hourly rows.
CREATE OR REPLACE FUNCTION "click_stats_daily_apply"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    INSERT INTO "click_stats_daily" AS d ("day","campaign_id","source_id","offer_id","landing_id","shard","clicks","unique_clicks","bot_clicks","cost","landing_views","landing_clicks")
    VALUES (OLD.hour - OLD.hour % 86400000, OLD.campaign_id, OLD.source_id, OLD.offer_id, OLD.landing_id, OLD.shard, -OLD.clicks, -OLD.unique_clicks, -OLD.bot_clicks, -OLD.cost, -OLD.landing_views, -OLD.landing_clicks)
    ON CONFLICT ("day","campaign_id","source_id","offer_id","landing_id","shard") DO UPDATE SET clicks = d.clicks + excluded.clicks, unique_clicks = d.unique_clicks + excluded.unique_clicks, bot_clicks = d.bot_clicks + excluded.bot_clicks, cost = d.cost + excluded.cost, landing_views = d.landing_views + excluded.landing_views, landing_clicks = d.landing_clicks + excluded.landing_clicks;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO "click_stats_daily" AS d ("day","campaign_id","source_id","offer_id","landing_id","shard","clicks","unique_clicks","bot_clicks","cost","landing_views","landing_clicks")
    VALUES (NEW.hour - NEW.hour % 86400000, NEW.campaign_id, NEW.source_id, NEW.offer_id, NEW.landing_id, NEW.shard, NEW.clicks, NEW.unique_clicks, NEW.bot_clicks, NEW.cost, NEW.landing_views, NEW.landing_clicks)
    ON CONFLICT ("day","campaign_id","source_id","offer_id","landing_id","shard") DO UPDATE SET clicks = d.clicks + excluded.clicks, unique_clicks = d.unique_clicks + excluded.unique_clicks, bot_clicks = d.bot_clicks + excluded.bot_clicks, cost = d.cost + excluded.cost, landing_views = d.landing_views + excluded.landing_views, landing_clicks = d.landing_clicks + excluded.landing_clicks;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION "click_country_daily_apply"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    INSERT INTO "click_country_daily" AS d ("day","campaign_id","country","shard","clicks","unique_clicks","bot_clicks","cost","landing_views","landing_clicks")
    VALUES (OLD.hour - OLD.hour % 86400000, OLD.campaign_id, OLD.country, OLD.shard, -OLD.clicks, -OLD.unique_clicks, -OLD.bot_clicks, -OLD.cost, -OLD.landing_views, -OLD.landing_clicks)
    ON CONFLICT ("day","campaign_id","country","shard") DO UPDATE SET clicks = d.clicks + excluded.clicks, unique_clicks = d.unique_clicks + excluded.unique_clicks, bot_clicks = d.bot_clicks + excluded.bot_clicks, cost = d.cost + excluded.cost, landing_views = d.landing_views + excluded.landing_views, landing_clicks = d.landing_clicks + excluded.landing_clicks;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO "click_country_daily" AS d ("day","campaign_id","country","shard","clicks","unique_clicks","bot_clicks","cost","landing_views","landing_clicks")
    VALUES (NEW.hour - NEW.hour % 86400000, NEW.campaign_id, NEW.country, NEW.shard, NEW.clicks, NEW.unique_clicks, NEW.bot_clicks, NEW.cost, NEW.landing_views, NEW.landing_clicks)
    ON CONFLICT ("day","campaign_id","country","shard") DO UPDATE SET clicks = d.clicks + excluded.clicks, unique_clicks = d.unique_clicks + excluded.unique_clicks, bot_clicks = d.bot_clicks + excluded.bot_clicks, cost = d.cost + excluded.cost, landing_views = d.landing_views + excluded.landing_views, landing_clicks = d.landing_clicks + excluded.landing_clicks;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION "click_path_daily_apply"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    INSERT INTO "click_path_daily" AS d ("day","campaign_id","path_id","shard","clicks","unique_clicks","bot_clicks","cost","landing_views","landing_clicks")
    VALUES (OLD.hour - OLD.hour % 86400000, OLD.campaign_id, OLD.path_id, OLD.shard, -OLD.clicks, -OLD.unique_clicks, -OLD.bot_clicks, -OLD.cost, -OLD.landing_views, -OLD.landing_clicks)
    ON CONFLICT ("day","campaign_id","path_id","shard") DO UPDATE SET clicks = d.clicks + excluded.clicks, unique_clicks = d.unique_clicks + excluded.unique_clicks, bot_clicks = d.bot_clicks + excluded.bot_clicks, cost = d.cost + excluded.cost, landing_views = d.landing_views + excluded.landing_views, landing_clicks = d.landing_clicks + excluded.landing_clicks;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO "click_path_daily" AS d ("day","campaign_id","path_id","shard","clicks","unique_clicks","bot_clicks","cost","landing_views","landing_clicks")
    VALUES (NEW.hour - NEW.hour % 86400000, NEW.campaign_id, NEW.path_id, NEW.shard, NEW.clicks, NEW.unique_clicks, NEW.bot_clicks, NEW.cost, NEW.landing_views, NEW.landing_clicks)
    ON CONFLICT ("day","campaign_id","path_id","shard") DO UPDATE SET clicks = d.clicks + excluded.clicks, unique_clicks = d.unique_clicks + excluded.unique_clicks, bot_clicks = d.bot_clicks + excluded.bot_clicks, cost = d.cost + excluded.cost, landing_views = d.landing_views + excluded.landing_views, landing_clicks = d.landing_clicks + excluded.landing_clicks;
  END IF;
  RETURN NULL;
END $$;
