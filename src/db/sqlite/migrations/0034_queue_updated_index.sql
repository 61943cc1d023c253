-- Issue 32: a queue's list without a status filter walks this index in the default order (updated_at),
-- instead of sorting the queue's every ticket (12,500 at 100k: 6 ms a page), as owner and team lists do.
CREATE INDEX `tickets_queue_updated_idx` ON `tickets` (`queue_id`,`updated_at`);