-- Oldest first (docs/decisions/107-oldest-first-indexes.md): a list sorted by `created` with a
-- status, a queue, or both, reads its page in order from one of these. Without, SQLite read every
-- ticket of the status through its updated_at index and sorted them (`status=open&sort=created`:
-- 25,099 tickets for a page of 50 at 100k, 15 ms), or walked tickets_created_idx past the oldest
-- tickets, mostly resolved in a real helpdesk.
-- Partial on a condition every ticket meets (`created_at > ''`), which only a list by `created`
-- names (src/db/shared/listSort.ts, OLDEST_FIRST): no other query can take them. As plain
-- indexes, SQLite took (status, created_at) where it had taken (status, updated_at), at the same
-- estimated cost, for `status IN (…)` by `updated`: `cf.severity=critical&status=new,open` read
-- every such ticket and sorted them, 45 ms instead of 8.
CREATE INDEX `tickets_status_created_idx` ON `tickets` (`status`,`created_at`) WHERE created_at > '';--> statement-breakpoint
CREATE INDEX `tickets_queue_status_created_idx` ON `tickets` (`queue_id`,`status`,`created_at`) WHERE created_at > '';--> statement-breakpoint
CREATE INDEX `tickets_queue_created_idx` ON `tickets` (`queue_id`,`created_at`) WHERE created_at > '';
