CREATE TABLE `lifecycles` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`statuses` text NOT NULL,
	`transitions` text,
	`on_customer_reply` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `lifecycles_name_uq` ON `lifecycles` ("name" COLLATE NOCASE);--> statement-breakpoint
CREATE TABLE `ticket_links` (
	`base_id` integer NOT NULL,
	`type` text NOT NULL,
	`target_id` integer NOT NULL,
	`creator_id` integer,
	`created_at` text NOT NULL,
	PRIMARY KEY(`base_id`, `type`, `target_id`),
	FOREIGN KEY (`base_id`) REFERENCES `tickets`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`target_id`) REFERENCES `tickets`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`creator_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `ticket_links_target_idx` ON `ticket_links` (`target_id`,`type`);--> statement-breakpoint
CREATE TABLE `ticket_merges` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`ticket_id` integer NOT NULL,
	`into_id` integer NOT NULL,
	`merged_by` integer,
	`merged_at` text NOT NULL,
	`snapshot` text NOT NULL,
	`unmerged_at` text,
	FOREIGN KEY (`ticket_id`) REFERENCES `tickets`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`into_id`) REFERENCES `tickets`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`merged_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `ticket_merges_ticket_idx` ON `ticket_merges` (`ticket_id`);--> statement-breakpoint
CREATE INDEX `ticket_merges_into_idx` ON `ticket_merges` (`into_id`);--> statement-breakpoint
CREATE TABLE `ticket_tags` (
	`ticket_id` integer NOT NULL,
	`tag` text NOT NULL,
	`created_at` text NOT NULL,
	PRIMARY KEY(`ticket_id`, `tag`),
	FOREIGN KEY (`ticket_id`) REFERENCES `tickets`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `ticket_tags_tag_idx` ON `ticket_tags` (`tag`,`ticket_id`);--> statement-breakpoint
ALTER TABLE `queues` ADD `lifecycle_id` integer REFERENCES lifecycles(id);--> statement-breakpoint
ALTER TABLE `tickets` ADD `merged_into` integer;--> statement-breakpoint
CREATE INDEX `tickets_merged_into_idx` ON `tickets` (`merged_into`) WHERE merged_into IS NOT NULL;--> statement-breakpoint
ALTER TABLE `transactions` ADD `merged_from` integer;--> statement-breakpoint
ALTER TABLE `users` ADD `blocked` integer DEFAULT false NOT NULL;