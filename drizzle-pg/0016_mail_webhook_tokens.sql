CREATE TABLE "mail_webhook_tokens" (
	"provider" text NOT NULL,
	"token" text NOT NULL,
	"body_hash" text NOT NULL,
	"expires_at" bigint NOT NULL,
	"created_at" bigint NOT NULL,
	CONSTRAINT "mail_webhook_tokens_provider_token_pk" PRIMARY KEY("provider","token")
);
--> statement-breakpoint
CREATE INDEX "mail_webhook_tokens_expires_idx" ON "mail_webhook_tokens" USING btree ("expires_at");
