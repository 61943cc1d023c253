CREATE TABLE `ticket_ratings` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`ticket_id` integer NOT NULL,
	`resolve_txn_id` integer NOT NULL,
	`requester_id` integer,
	`rating` text NOT NULL,
	`comment` text DEFAULT '' NOT NULL,
	`transaction_id` integer NOT NULL,
	`rated_at` text NOT NULL,
	FOREIGN KEY (`ticket_id`) REFERENCES `tickets`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`requester_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `ticket_ratings_resolve_uq` ON `ticket_ratings` (`ticket_id`,`resolve_txn_id`);--> statement-breakpoint
CREATE INDEX `ticket_ratings_rated_at_idx` ON `ticket_ratings` (`rated_at`);--> statement-breakpoint
CREATE TABLE `time_entries` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`ticket_id` integer NOT NULL,
	`user_id` integer NOT NULL,
	`creator_id` integer NOT NULL,
	`minutes` integer NOT NULL,
	`worked_on` text NOT NULL,
	`note` text DEFAULT '' NOT NULL,
	`transaction_id` integer,
	`created_at` text NOT NULL,
	FOREIGN KEY (`ticket_id`) REFERENCES `tickets`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`creator_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `time_entries_worked_on_idx` ON `time_entries` (`worked_on`);--> statement-breakpoint
CREATE INDEX `time_entries_user_idx` ON `time_entries` (`user_id`,`worked_on`);--> statement-breakpoint
CREATE INDEX `time_entries_ticket_idx` ON `time_entries` (`ticket_id`);--> statement-breakpoint
ALTER TABLE `queues` ADD `csat_enabled` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `tickets` ADD `time_worked_minutes` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `tickets` ADD `csat` text;