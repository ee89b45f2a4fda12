-- Spec §2 default conversion types and the issue's default status map.
INSERT OR IGNORE INTO `conversion_types` (`slug`,`name`,`include_in_conversions`,`include_in_revenue`,`send_postback`,`negative`,`builtin`,`created_at`,`updated_at`) VALUES
  ('sale','Sale',1,1,1,0,1,0,0),
  ('lead','Lead',1,1,1,0,1,0,0),
  ('trial','Trial',1,0,0,0,1,0,0),
  ('install','Install',1,1,1,0,1,0,0),
  ('reject','Reject',0,0,0,0,1,0,0),
  ('chargeback','Chargeback',1,1,0,1,1,0,0);
--> statement-breakpoint
INSERT OR IGNORE INTO `status_map` (`status`,`type_slug`) VALUES
  ('approved','sale'),
  ('pending','lead'),
  ('rejected','reject'),
  ('declined','reject'),
  ('chargeback','chargeback'),
  ('refund','chargeback');
