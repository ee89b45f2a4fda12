-- Templates (issue 29, docs/templates.md): a source remembers the query string its tracking link carries
-- (link_params, in the source's macro syntax), and the operator's own source and network templates are
-- kept as checked JSON, beside the built-in registry that lives in the code (src/templates).
ALTER TABLE "sources" ADD COLUMN "link_params" text;
--> statement-breakpoint
CREATE TABLE "custom_templates" (
	"kind" text NOT NULL,
	"id" text NOT NULL,
	"body" text NOT NULL,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL,
	CONSTRAINT "custom_templates_kind_id_pk" PRIMARY KEY("kind","id")
);
