DROP INDEX `transactions_message_id_idx`;--> statement-breakpoint
CREATE INDEX `transactions_message_id_idx` ON `transactions` (`message_id`) WHERE message_id IS NOT NULL;