-- Oldest first (docs/decisions/107-oldest-first-indexes.md): SQLite's 0038, the same names and
-- the same condition (tests/pg-schema.test.ts compares them): only a list by `created` names
-- `created_at > ''`. As in 0023, the id is the last column: a list sorts by its column and then
-- by id, and its page comes off the index in that order.
CREATE INDEX "tickets_status_created_idx" ON "tickets" USING btree ("status","created_at","id") WHERE created_at > '';--> statement-breakpoint
CREATE INDEX "tickets_queue_status_created_idx" ON "tickets" USING btree ("queue_id","status","created_at","id") WHERE created_at > '';--> statement-breakpoint
CREATE INDEX "tickets_queue_created_idx" ON "tickets" USING btree ("queue_id","created_at","id") WHERE created_at > '';
