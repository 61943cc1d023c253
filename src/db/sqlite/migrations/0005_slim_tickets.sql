CREATE INDEX `transactions_create_idx` ON `transactions` (`ticket_id`) WHERE type = 'Create';--> statement-breakpoint
ALTER TABLE `tickets` DROP COLUMN `description`;