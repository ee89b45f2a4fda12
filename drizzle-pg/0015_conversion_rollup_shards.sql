ALTER TABLE "conversion_stats_daily" ADD COLUMN "shard" smallint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "conversion_stats_hourly" ADD COLUMN "shard" smallint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "conversion_stats_daily" DROP CONSTRAINT "conversion_stats_daily_day_campaign_id_source_id_offer_id_landing_id_type_pk";--> statement-breakpoint
ALTER TABLE "conversion_stats_hourly" DROP CONSTRAINT "conversion_stats_hourly_hour_campaign_id_source_id_offer_id_landing_id_type_pk";--> statement-breakpoint
ALTER TABLE "conversion_stats_daily" ADD CONSTRAINT "conversion_stats_daily_day_campaign_id_source_id_offer_id_landing_id_type_shard_pk" PRIMARY KEY("day","campaign_id","source_id","offer_id","landing_id","type","shard");--> statement-breakpoint
ALTER TABLE "conversion_stats_hourly" ADD CONSTRAINT "conversion_stats_hourly_hour_campaign_id_source_id_offer_id_landing_id_type_shard_pk" PRIMARY KEY("hour","campaign_id","source_id","offer_id","landing_id","type","shard");--> statement-breakpoint
-- Hand-written: the daily trigger of 0001 keeps each shard's daily row equal to the sum of its hourly rows.
CREATE OR REPLACE FUNCTION "conversion_stats_daily_apply"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    INSERT INTO "conversion_stats_daily" AS d ("day","campaign_id","source_id","offer_id","landing_id","type","shard","conversions","revenue","revenue_abs")
    VALUES (OLD.hour - OLD.hour % 86400000, OLD.campaign_id, OLD.source_id, OLD.offer_id, OLD.landing_id, OLD.type, OLD.shard, -OLD.conversions, -OLD.revenue, -OLD.revenue_abs)
    ON CONFLICT ("day","campaign_id","source_id","offer_id","landing_id","type","shard") DO UPDATE SET conversions = d.conversions + excluded.conversions, revenue = d.revenue + excluded.revenue, revenue_abs = d.revenue_abs + excluded.revenue_abs;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO "conversion_stats_daily" AS d ("day","campaign_id","source_id","offer_id","landing_id","type","shard","conversions","revenue","revenue_abs")
    VALUES (NEW.hour - NEW.hour % 86400000, NEW.campaign_id, NEW.source_id, NEW.offer_id, NEW.landing_id, NEW.type, NEW.shard, NEW.conversions, NEW.revenue, NEW.revenue_abs)
    ON CONFLICT ("day","campaign_id","source_id","offer_id","landing_id","type","shard") DO UPDATE SET conversions = d.conversions + excluded.conversions, revenue = d.revenue + excluded.revenue, revenue_abs = d.revenue_abs + excluded.revenue_abs;
  END IF;
  RETURN NULL;
END $$;
