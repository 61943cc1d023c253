-- SPEC C4: canned responses, and saved views shared with a team (a deleted team un-shares its views).
CREATE TABLE `canned_responses` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`body` text NOT NULL,
	`queue_id` integer,
	`owner_id` integer,
	`set_status` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`queue_id`) REFERENCES `queues`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`owner_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `canned_responses_owner_idx` ON `canned_responses` (`owner_id`);--> statement-breakpoint
CREATE INDEX `canned_responses_queue_idx` ON `canned_responses` (`queue_id`);--> statement-breakpoint
ALTER TABLE `saved_views` ADD `team_id` integer REFERENCES teams(id) ON DELETE SET NULL;--> statement-breakpoint
CREATE INDEX `saved_views_team_idx` ON `saved_views` (`team_id`);