DROP INDEX `ticket_custom_values_lookup_idx`;--> statement-breakpoint
CREATE INDEX `ticket_custom_values_lookup_idx` ON `ticket_custom_values` (`field_id`,`value`,`ticket_id`);--> statement-breakpoint
CREATE INDEX `tickets_owner_status_updated_idx` ON `tickets` (`owner_id`,`status`,`updated_at`);--> statement-breakpoint
CREATE INDEX `tickets_team_status_updated_idx` ON `tickets` (`team_id`,`status`,`updated_at`);