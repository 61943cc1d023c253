CREATE TABLE `app_settings` (
	`name` text PRIMARY KEY NOT NULL,
	`value` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `ticket_drafts` (
	`user_id` integer NOT NULL,
	`ticket_id` integer NOT NULL,
	`kind` text DEFAULT 'reply' NOT NULL,
	`body` text NOT NULL,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`user_id`, `ticket_id`),
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`ticket_id`) REFERENCES `tickets`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `ticket_drafts_ticket_idx` ON `ticket_drafts` (`ticket_id`);--> statement-breakpoint
CREATE TABLE `ticket_reads` (
	`user_id` integer NOT NULL,
	`ticket_id` integer NOT NULL,
	`seen_txn_id` integer NOT NULL,
	`seen_at` text NOT NULL,
	PRIMARY KEY(`user_id`, `ticket_id`),
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`ticket_id`) REFERENCES `tickets`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `ticket_reads_ticket_idx` ON `ticket_reads` (`ticket_id`);--> statement-breakpoint
ALTER TABLE `queues` ADD `portal_create` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `tickets` ADD `customer_txn_id` integer;--> statement-breakpoint
-- SPEC D6: the portal opens new requests in the General queue until an admin chooses others
-- (the queue of that name, else the oldest queue).
UPDATE `queues` SET `portal_create` = 1 WHERE `id` = coalesce(
  (SELECT min(`id`) FROM `queues` WHERE `name` = 'General' COLLATE NOCASE), (SELECT min(`id`) FROM `queues`));--> statement-breakpoint
-- Unread marks: each ticket's newest entry written by someone who is not staff.
UPDATE `tickets` SET `customer_txn_id` = (SELECT max(`x`.`id`) FROM `transactions` AS `x`
  JOIN `users` AS `u` ON `u`.`id` = `x`.`creator_id`
  WHERE `x`.`ticket_id` = `tickets`.`id` AND `u`.`role` = 'requester' AND `x`.`type` IN ('Create', 'Correspond', 'Comment'));
