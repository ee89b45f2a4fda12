CREATE TABLE "cap_counters" (
	"cap" text NOT NULL,
	"period" text NOT NULL,
	"clicks" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "cap_counters_cap_period_pk" PRIMARY KEY("cap","period")
);
--> statement-breakpoint
ALTER TABLE "offers" ADD COLUMN "cap" text;--> statement-breakpoint
ALTER TABLE "campaign_offers" ADD COLUMN "cap" text;--> statement-breakpoint
ALTER TABLE "path_offers" ADD COLUMN "cap" text;
