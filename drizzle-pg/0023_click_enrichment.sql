-- Click enrichment (issue 28): see drizzle/0026_click_enrichment.sql. Nullable columns without a default are
-- a catalog change only on Postgres (no table rewrite, a brief ACCESS EXCLUSIVE lock). asn is bigint: 32-bit
-- AS numbers go past integer.
ALTER TABLE "clicks" ADD COLUMN "country" text;--> statement-breakpoint
ALTER TABLE "clicks" ADD COLUMN "asn" bigint;--> statement-breakpoint
ALTER TABLE "clicks" ADD COLUMN "as_org" text;--> statement-breakpoint
ALTER TABLE "clicks" ADD COLUMN "connection" text;--> statement-breakpoint
ALTER TABLE "clicks" ADD COLUMN "language" text;--> statement-breakpoint
ALTER TABLE "clicks" ADD COLUMN "os_version" text;--> statement-breakpoint
ALTER TABLE "clicks" ADD COLUMN "browser_version" text;--> statement-breakpoint
ALTER TABLE "clicks" ADD COLUMN "region" text;--> statement-breakpoint
ALTER TABLE "clicks" ADD COLUMN "city" text;
