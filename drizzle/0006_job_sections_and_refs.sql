ALTER TABLE `jobs` ADD `section` text DEFAULT 'conversions' NOT NULL;--> statement-breakpoint
ALTER TABLE `jobs` ADD `ref` text;--> statement-breakpoint
CREATE INDEX `jobs_ref_idx` ON `jobs` (`ref`,`status`) WHERE "jobs"."ref" IS NOT NULL;