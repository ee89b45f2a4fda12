ALTER TABLE "jobs" ADD COLUMN "section" text DEFAULT 'conversions' NOT NULL;--> statement-breakpoint
ALTER TABLE "jobs" ADD COLUMN "ref" text;--> statement-breakpoint
CREATE INDEX "jobs_ref_idx" ON "jobs" USING btree ("ref","status") WHERE "jobs"."ref" IS NOT NULL;