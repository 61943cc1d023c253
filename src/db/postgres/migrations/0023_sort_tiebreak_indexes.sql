-- Issue 32 (decision 088): the lists sort by a column and then by id. SQLite's index on a column
-- holds the rowid (the id) after it, so its pages come off the index in that order; PostgreSQL's
-- did not, and it sorted each run of equal values: a page deep in the priority sort (101 values)
-- read and sorted 5,000 rows in groups (15.8 ms at 100k, 4.6 ms read in order), and a page of a
-- filter probed per ticket (cf.<key>) read four times the rows it kept. Same names as SQLite's
-- indexes (tests/pg-schema.test.ts compares them), with the id as their last column, and the
-- status beside (INCLUDE): a list with no status filter leaves merged tickets out, and a deep
-- page finds its ids from the index alone (src/db/postgres/ticketList.ts, DEFER_FROM).
DROP INDEX IF EXISTS "tickets_updated_idx";--> statement-breakpoint
CREATE INDEX "tickets_updated_idx" ON "tickets" USING btree ("updated_at","id") INCLUDE ("status");--> statement-breakpoint
DROP INDEX IF EXISTS "tickets_priority_idx";--> statement-breakpoint
CREATE INDEX "tickets_priority_idx" ON "tickets" USING btree ("priority","id") INCLUDE ("status");
