-- Templates (issue 29, docs/templates.md): a source remembers the query string its tracking link carries
-- (link_params, in the source's macro syntax), and the operator's own source and network templates are
-- kept as checked JSON, beside the built-in registry that lives in the code (src/templates).
ALTER TABLE `sources` ADD `link_params` text;
--> statement-breakpoint
CREATE TABLE `custom_templates` (
	`kind` text NOT NULL,
	`id` text NOT NULL,
	`body` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`kind`, `id`)
);
