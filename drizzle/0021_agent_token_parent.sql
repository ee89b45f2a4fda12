ALTER TABLE `agent_tokens` ADD `created_by_token` integer;
