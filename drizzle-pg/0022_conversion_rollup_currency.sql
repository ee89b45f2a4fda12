-- Conversion rollups keyed by currency as well (issue 26; the SQLite twin is drizzle/0025, which says what
-- '' means). The shards of 0015 stay; the backfill folds each key's shards into shard 0 (reports sum them).
ALTER TABLE "conversion_stats_hourly" ADD COLUMN "currency" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "conversion_stats_daily" ADD COLUMN "currency" text DEFAULT '' NOT NULL;--> statement-breakpoint
-- The rows as they were, one per key (shards summed), to split below.
CREATE TEMPORARY TABLE "conversion_stats_before" ON COMMIT DROP AS
  SELECT "hour", "campaign_id", "source_id", "offer_id", "landing_id", "type", sum("conversions")::int8 AS "conversions",
    sum("revenue") AS "revenue", sum("revenue_abs") AS "revenue_abs"
  FROM "conversion_stats_hourly" GROUP BY 1, 2, 3, 4, 5, 6;--> statement-breakpoint
DROP TRIGGER "conversion_stats_daily_sync" ON "conversion_stats_hourly";--> statement-breakpoint
DELETE FROM "conversion_stats_hourly";--> statement-breakpoint
DELETE FROM "conversion_stats_daily";--> statement-breakpoint
ALTER TABLE "conversion_stats_daily" DROP CONSTRAINT "conversion_stats_daily_day_campaign_id_source_id_offer_id_landing_id_type_shard_pk";--> statement-breakpoint
ALTER TABLE "conversion_stats_hourly" DROP CONSTRAINT "conversion_stats_hourly_hour_campaign_id_source_id_offer_id_landing_id_type_shard_pk";--> statement-breakpoint
ALTER TABLE "conversion_stats_daily" ADD CONSTRAINT "conversion_stats_daily_day_campaign_id_source_id_offer_id_landing_id_type_currency_shard_pk" PRIMARY KEY("day","campaign_id","source_id","offer_id","landing_id","type","currency","shard");--> statement-breakpoint
ALTER TABLE "conversion_stats_hourly" ADD CONSTRAINT "conversion_stats_hourly_hour_campaign_id_source_id_offer_id_landing_id_type_currency_shard_pk" PRIMARY KEY("hour","campaign_id","source_id","offer_id","landing_id","type","currency","shard");--> statement-breakpoint
-- Backfill, exact: each row split by the currencies of the raw conversions it counts (conversions are never
-- pruned; those of excluded clicks were never counted, as in the live writer).
INSERT INTO "conversion_stats_hourly" ("hour","campaign_id","source_id","offer_id","landing_id","type","currency","shard","conversions","revenue","revenue_abs")
SELECT r."hour", r."campaign_id", r."source_id", r."offer_id", r."landing_id", r."type", v."currency", 0, v."n", v."rev", v."abs"
FROM "conversion_stats_before" r JOIN (
  SELECT v."date" - v."date" % 3600000 AS "hour", v."campaign_id", coalesce(v."source_id", 0) AS "source_id", coalesce(v."offer_id", 0) AS "offer_id",
    coalesce(v."landing_id", 0) AS "landing_id", v."type", upper(coalesce(v."currency", '')) AS "currency",
    count(*) AS "n", sum(v."revenue") AS "rev", sum(abs(v."revenue")) AS "abs"
  FROM "conversions" v WHERE NOT EXISTS (SELECT 1 FROM "clicks" c WHERE c."id" = v."click_row_id" AND c."excluded" <> 0)
  GROUP BY 1, 2, 3, 4, 5, 6, 7
) v ON v."hour" = r."hour" AND v."campaign_id" = r."campaign_id" AND v."source_id" = r."source_id" AND v."offer_id" = r."offer_id"
  AND v."landing_id" = r."landing_id" AND v."type" = r."type";--> statement-breakpoint
-- Whatever a row held beyond its raw conversions stays counted, in the currency of the row's offer ('' without one).
INSERT INTO "conversion_stats_hourly" AS h ("hour","campaign_id","source_id","offer_id","landing_id","type","currency","shard","conversions","revenue","revenue_abs")
SELECT r."hour", r."campaign_id", r."source_id", r."offer_id", r."landing_id", r."type",
  upper(coalesce((SELECT o."currency" FROM "offers" o WHERE o."id" = r."offer_id"), '')), 0,
  r."conversions" - coalesce(s."n", 0), r."revenue" - coalesce(s."rev", 0), r."revenue_abs" - coalesce(s."abs", 0)
FROM "conversion_stats_before" r LEFT JOIN (
  SELECT "hour", "campaign_id", "source_id", "offer_id", "landing_id", "type", sum("conversions") AS "n", sum("revenue") AS "rev", sum("revenue_abs") AS "abs"
  FROM "conversion_stats_hourly" GROUP BY 1, 2, 3, 4, 5, 6
) s ON s."hour" = r."hour" AND s."campaign_id" = r."campaign_id" AND s."source_id" = r."source_id" AND s."offer_id" = r."offer_id"
  AND s."landing_id" = r."landing_id" AND s."type" = r."type"
WHERE r."conversions" <> coalesce(s."n", 0) OR abs(r."revenue" - coalesce(s."rev", 0)) > 1e-9 OR abs(r."revenue_abs" - coalesce(s."abs", 0)) > 1e-9
ON CONFLICT ("hour","campaign_id","source_id","offer_id","landing_id","type","currency","shard") DO UPDATE SET
  conversions = h.conversions + excluded.conversions, revenue = h.revenue + excluded.revenue, revenue_abs = h.revenue_abs + excluded.revenue_abs;--> statement-breakpoint
INSERT INTO "conversion_stats_daily" ("day","campaign_id","source_id","offer_id","landing_id","type","currency","shard","conversions","revenue","revenue_abs")
SELECT "hour" - "hour" % 86400000, "campaign_id", "source_id", "offer_id", "landing_id", "type", "currency", "shard", sum("conversions"), sum("revenue"), sum("revenue_abs")
FROM "conversion_stats_hourly" GROUP BY 1, 2, 3, 4, 5, 6, 7, 8;--> statement-breakpoint
-- The daily trigger of 0001/0015, with the currency in the key.
CREATE OR REPLACE FUNCTION "conversion_stats_daily_apply"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    INSERT INTO "conversion_stats_daily" AS d ("day","campaign_id","source_id","offer_id","landing_id","type","currency","shard","conversions","revenue","revenue_abs")
    VALUES (OLD.hour - OLD.hour % 86400000, OLD.campaign_id, OLD.source_id, OLD.offer_id, OLD.landing_id, OLD.type, OLD.currency, OLD.shard, -OLD.conversions, -OLD.revenue, -OLD.revenue_abs)
    ON CONFLICT ("day","campaign_id","source_id","offer_id","landing_id","type","currency","shard") DO UPDATE SET conversions = d.conversions + excluded.conversions, revenue = d.revenue + excluded.revenue, revenue_abs = d.revenue_abs + excluded.revenue_abs;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO "conversion_stats_daily" AS d ("day","campaign_id","source_id","offer_id","landing_id","type","currency","shard","conversions","revenue","revenue_abs")
    VALUES (NEW.hour - NEW.hour % 86400000, NEW.campaign_id, NEW.source_id, NEW.offer_id, NEW.landing_id, NEW.type, NEW.currency, NEW.shard, NEW.conversions, NEW.revenue, NEW.revenue_abs)
    ON CONFLICT ("day","campaign_id","source_id","offer_id","landing_id","type","currency","shard") DO UPDATE SET conversions = d.conversions + excluded.conversions, revenue = d.revenue + excluded.revenue, revenue_abs = d.revenue_abs + excluded.revenue_abs;
  END IF;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER "conversion_stats_daily_sync" AFTER INSERT OR UPDATE OR DELETE ON "conversion_stats_hourly"
  FOR EACH ROW EXECUTE FUNCTION "conversion_stats_daily_apply"();
