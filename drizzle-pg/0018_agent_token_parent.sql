ALTER TABLE "agent_tokens" ADD COLUMN "created_by_token" bigint;
