-- One timeline per click (issue 30, docs/timeline.md): a conversion keeps the raw query string of the /postback
-- that recorded it (null for webhooks, commerce and the API), and each status-history row the query of the
-- state it saved.
ALTER TABLE "conversions" ADD COLUMN "postback_query" text;
--> statement-breakpoint
ALTER TABLE "conversion_status_history" ADD COLUMN "query" text;
