ALTER TABLE "campaign_landings" ADD COLUMN "position" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "campaign_offers" ADD COLUMN "position" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- Existing links keep the order they were read in before (physical order, i.e. the order they were given).
UPDATE "campaign_offers" AS "co" SET "position" = "r"."n" FROM (SELECT "campaign_id", "offer_id", (row_number() OVER (PARTITION BY "campaign_id" ORDER BY ctid) - 1)::int AS "n" FROM "campaign_offers") AS "r" WHERE "co"."campaign_id" = "r"."campaign_id" AND "co"."offer_id" = "r"."offer_id";--> statement-breakpoint
UPDATE "campaign_landings" AS "cl" SET "position" = "r"."n" FROM (SELECT "campaign_id", "landing_id", (row_number() OVER (PARTITION BY "campaign_id" ORDER BY ctid) - 1)::int AS "n" FROM "campaign_landings") AS "r" WHERE "cl"."campaign_id" = "r"."campaign_id" AND "cl"."landing_id" = "r"."landing_id";
