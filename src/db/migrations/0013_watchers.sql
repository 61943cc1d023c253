CREATE TABLE `app_secrets` (
	`name` text PRIMARY KEY NOT NULL,
	`value` text NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `queue_watchers` (
	`queue_id` integer NOT NULL,
	`role` text NOT NULL,
	`user_id` integer NOT NULL,
	`created_at` text NOT NULL,
	PRIMARY KEY(`queue_id`, `role`, `user_id`),
	FOREIGN KEY (`queue_id`) REFERENCES `queues`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `queue_watchers_user_idx` ON `queue_watchers` (`user_id`);--> statement-breakpoint
CREATE TABLE `ticket_watchers` (
	`ticket_id` integer NOT NULL,
	`role` text NOT NULL,
	`user_id` integer NOT NULL,
	`created_at` text NOT NULL,
	PRIMARY KEY(`ticket_id`, `role`, `user_id`),
	FOREIGN KEY (`ticket_id`) REFERENCES `tickets`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `ticket_watchers_user_idx` ON `ticket_watchers` (`user_id`,`role`);--> statement-breakpoint
ALTER TABLE `outbox` ADD `audience` text;--> statement-breakpoint
ALTER TABLE `outbox` ADD `attachment_ids` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE `queues` ADD `keep_mail_cc` integer DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE `queues` ADD `signature` text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE `users` ADD `timezone` text DEFAULT 'UTC' NOT NULL;--> statement-breakpoint
ALTER TABLE `users` ADD `signature` text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE `users` ADD `notify_new_tickets` integer DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE `users` ADD `notify_replies` integer DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE `users` ADD `notify_notes` integer DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE `users` ADD `portal_epoch` integer DEFAULT 0 NOT NULL;