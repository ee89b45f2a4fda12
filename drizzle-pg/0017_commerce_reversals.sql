ALTER TABLE "orders" ADD COLUMN "counted" double precision;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "counted_currency" text;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "reversed" double precision DEFAULT 0 NOT NULL;--> statement-breakpoint
UPDATE "orders" SET "counted" = coalesce((SELECT "revenue" FROM "conversions" WHERE "conversions"."id" = "orders"."conversion_id"), "total"),
  "counted_currency" = coalesce((SELECT "currency" FROM "conversions" WHERE "conversions"."id" = "orders"."conversion_id"), "currency")
  WHERE "conversion_id" IS NOT NULL;--> statement-breakpoint
UPDATE "orders" SET "reversed" = CASE WHEN "reversal_id" IS NOT NULL THEN "counted" ELSE least("counted", "refunded") END
  WHERE "conversion_id" IS NOT NULL;
