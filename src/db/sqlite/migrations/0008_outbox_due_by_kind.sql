DROP INDEX `outbox_due_idx`;--> statement-breakpoint
CREATE INDEX `outbox_due_idx` ON `outbox` (`status`,`kind`,`next_attempt_at`);