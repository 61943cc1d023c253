-- Oldest first (docs/decisions/107-oldest-first-indexes.md): a list sorted by `created` with a
-- status, a queue, or both, reads its page in order from one of these. Through
-- tickets_created_idx alone it read the oldest tickets first, most of them resolved, and passed
-- over them: `status=open&sort=created` read ~10,000 tickets for a page of 50 (15 ms at 100k).
CREATE INDEX `tickets_status_created_idx` ON `tickets` (`status`,`created_at`);--> statement-breakpoint
CREATE INDEX `tickets_queue_status_created_idx` ON `tickets` (`queue_id`,`status`,`created_at`);--> statement-breakpoint
CREATE INDEX `tickets_queue_created_idx` ON `tickets` (`queue_id`,`created_at`);
