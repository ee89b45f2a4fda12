-- Click enrichment (issue 28): country and network from the IP data (src/lib/geoip), connection type,
-- language, OS and browser major versions, and region/city with a city database. Nullable, no default:
-- adding them rewrites nothing (older clicks read null).
ALTER TABLE `clicks` ADD `country` text;
--> statement-breakpoint
ALTER TABLE `clicks` ADD `asn` integer;
--> statement-breakpoint
ALTER TABLE `clicks` ADD `as_org` text;
--> statement-breakpoint
ALTER TABLE `clicks` ADD `connection` text;
--> statement-breakpoint
ALTER TABLE `clicks` ADD `language` text;
--> statement-breakpoint
ALTER TABLE `clicks` ADD `os_version` text;
--> statement-breakpoint
ALTER TABLE `clicks` ADD `browser_version` text;
--> statement-breakpoint
ALTER TABLE `clicks` ADD `region` text;
--> statement-breakpoint
ALTER TABLE `clicks` ADD `city` text;
