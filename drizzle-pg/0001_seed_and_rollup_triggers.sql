-- Hand-written (drizzle-kit models neither seed rows nor triggers). Postgres counterpart of the hand-written
-- parts of the SQLite migrations: 0001_defaults' seed rows and 0002_report_rollups' triggers. 0002's backfill
-- and 0003's click_index are not repeated: a Postgres database starts empty and has no click_index.
-- Spec §2 default conversion types and the issue's default status map (same rows as drizzle/0001_defaults.sql).
INSERT INTO "conversion_types" ("slug","name","include_in_conversions","include_in_revenue","send_postback","negative","builtin","created_at","updated_at") VALUES
  ('sale','Sale',1,1,1,0,1,0,0),
  ('lead','Lead',1,1,1,0,1,0,0),
  ('trial','Trial',1,0,0,0,1,0,0),
  ('install','Install',1,1,1,0,1,0,0),
  ('reject','Reject',0,0,0,0,1,0,0),
  ('chargeback','Chargeback',1,1,0,1,1,0,0)
ON CONFLICT DO NOTHING;
--> statement-breakpoint
INSERT INTO "status_map" ("status","type_slug") VALUES
  ('approved','sale'),
  ('pending','lead'),
  ('rejected','reject'),
  ('declined','reject'),
  ('chargeback','chargeback'),
  ('refund','chargeback')
ON CONFLICT DO NOTHING;
--> statement-breakpoint
-- Daily rows = sum of their hourly rows, whatever writes the hourly table (as the SQLite triggers of 0002):
-- an INSERT adds NEW to its day, a DELETE subtracts OLD, an UPDATE does both (the key may change day).
CREATE FUNCTION "click_stats_daily_apply"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    INSERT INTO "click_stats_daily" AS d ("day","campaign_id","source_id","offer_id","landing_id","clicks","unique_clicks","bot_clicks","cost","landing_views")
    VALUES (OLD.hour - OLD.hour % 86400000, OLD.campaign_id, OLD.source_id, OLD.offer_id, OLD.landing_id, -OLD.clicks, -OLD.unique_clicks, -OLD.bot_clicks, -OLD.cost, -OLD.landing_views)
    ON CONFLICT ("day","campaign_id","source_id","offer_id","landing_id") DO UPDATE SET clicks = d.clicks + excluded.clicks, unique_clicks = d.unique_clicks + excluded.unique_clicks, bot_clicks = d.bot_clicks + excluded.bot_clicks, cost = d.cost + excluded.cost, landing_views = d.landing_views + excluded.landing_views;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO "click_stats_daily" AS d ("day","campaign_id","source_id","offer_id","landing_id","clicks","unique_clicks","bot_clicks","cost","landing_views")
    VALUES (NEW.hour - NEW.hour % 86400000, NEW.campaign_id, NEW.source_id, NEW.offer_id, NEW.landing_id, NEW.clicks, NEW.unique_clicks, NEW.bot_clicks, NEW.cost, NEW.landing_views)
    ON CONFLICT ("day","campaign_id","source_id","offer_id","landing_id") DO UPDATE SET clicks = d.clicks + excluded.clicks, unique_clicks = d.unique_clicks + excluded.unique_clicks, bot_clicks = d.bot_clicks + excluded.bot_clicks, cost = d.cost + excluded.cost, landing_views = d.landing_views + excluded.landing_views;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "click_stats_daily_sync" AFTER INSERT OR UPDATE OR DELETE ON "click_stats_hourly"
  FOR EACH ROW EXECUTE FUNCTION "click_stats_daily_apply"();
--> statement-breakpoint
CREATE FUNCTION "conversion_stats_daily_apply"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    INSERT INTO "conversion_stats_daily" AS d ("day","campaign_id","source_id","offer_id","landing_id","type","conversions","revenue","revenue_abs")
    VALUES (OLD.hour - OLD.hour % 86400000, OLD.campaign_id, OLD.source_id, OLD.offer_id, OLD.landing_id, OLD.type, -OLD.conversions, -OLD.revenue, -OLD.revenue_abs)
    ON CONFLICT ("day","campaign_id","source_id","offer_id","landing_id","type") DO UPDATE SET conversions = d.conversions + excluded.conversions, revenue = d.revenue + excluded.revenue, revenue_abs = d.revenue_abs + excluded.revenue_abs;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO "conversion_stats_daily" AS d ("day","campaign_id","source_id","offer_id","landing_id","type","conversions","revenue","revenue_abs")
    VALUES (NEW.hour - NEW.hour % 86400000, NEW.campaign_id, NEW.source_id, NEW.offer_id, NEW.landing_id, NEW.type, NEW.conversions, NEW.revenue, NEW.revenue_abs)
    ON CONFLICT ("day","campaign_id","source_id","offer_id","landing_id","type") DO UPDATE SET conversions = d.conversions + excluded.conversions, revenue = d.revenue + excluded.revenue, revenue_abs = d.revenue_abs + excluded.revenue_abs;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "conversion_stats_daily_sync" AFTER INSERT OR UPDATE OR DELETE ON "conversion_stats_hourly"
  FOR EACH ROW EXECUTE FUNCTION "conversion_stats_daily_apply"();
