CREATE TABLE `calendars` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`time_zone` text NOT NULL,
	`hours` text DEFAULT '{}' NOT NULL,
	`holidays` text DEFAULT '[]' NOT NULL,
	`is_default` integer DEFAULT false NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `calendars_name_uq` ON `calendars` ("name" COLLATE NOCASE);--> statement-breakpoint
CREATE TABLE `sla_policies` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`position` integer DEFAULT 0 NOT NULL,
	`match` text DEFAULT '{}' NOT NULL,
	`calendar_id` integer,
	`first_response_minutes` integer,
	`next_response_minutes` integer,
	`resolution_minutes` integer,
	`warn_before_minutes` integer DEFAULT 0 NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`calendar_id`) REFERENCES `calendars`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `sla_policies_name_uq` ON `sla_policies` ("name" COLLATE NOCASE);--> statement-breakpoint
CREATE INDEX `sla_policies_position_idx` ON `sla_policies` (`position`);--> statement-breakpoint
CREATE TABLE `timers` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`ticket_id` integer NOT NULL,
	`kind` text NOT NULL,
	`key` text DEFAULT '' NOT NULL,
	`due_at` text NOT NULL,
	`cycle` text DEFAULT '' NOT NULL,
	`fired_at` text,
	`claimed_by` text,
	`claimed_until` text,
	`created_at` text NOT NULL,
	FOREIGN KEY (`ticket_id`) REFERENCES `tickets`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `timers_ticket_kind_key_uq` ON `timers` (`ticket_id`,`kind`,`key`);--> statement-breakpoint
CREATE INDEX `timers_pending_due_idx` ON `timers` (`due_at`) WHERE fired_at IS NULL;--> statement-breakpoint
ALTER TABLE `tickets` ADD `sla` text;--> statement-breakpoint
ALTER TABLE `tickets` ADD `next_due_at` text;--> statement-breakpoint
ALTER TABLE `tickets` ADD `next_warn_at` text;--> statement-breakpoint
ALTER TABLE `tickets` ADD `snoozed_until` text;--> statement-breakpoint
ALTER TABLE `tickets` ADD `unsnooze_on_reply` integer DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE `tickets` ADD `replied_while_snoozed` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `tickets` ADD `idle_since` text;--> statement-breakpoint
CREATE INDEX `tickets_next_due_idx` ON `tickets` (`next_due_at`) WHERE next_due_at IS NOT NULL;--> statement-breakpoint
CREATE INDEX `tickets_next_warn_idx` ON `tickets` (`next_warn_at`) WHERE next_warn_at IS NOT NULL;--> statement-breakpoint
CREATE INDEX `tickets_snoozed_idx` ON `tickets` (`snoozed_until`) WHERE snoozed_until IS NOT NULL;