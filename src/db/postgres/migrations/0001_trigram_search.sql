-- Substring search (SPEC B4 `q`, C6) over the same text SQLite's FTS5 message_search indexes:
-- ticket subjects and message bodies (transactions.body: the description, replies and internal
-- notes; the query keeps requesters to the public ones with `type <> 'Comment'`). pg_trgm GIN
-- indexes let `col ILIKE '%term%'` (case-insensitive substring, the meaning of SQLite's trigram
-- FTS5 plus its LIKE fallback) use an index for terms of three or more characters; shorter
-- terms scan, as on SQLite. PostgreSQL keeps the indexes current inside each writing
-- transaction, so there is no search_pending table and no flush worker here.
-- pg_trgm is a trusted extension (PostgreSQL 13+): the database owner may create it.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS tickets_subject_trgm_idx ON tickets USING gin (subject gin_trgm_ops);
--> statement-breakpoint
-- Most transactions (status, owner and field changes) have no body: they stay out of the index.
-- `body ILIKE …` implies `body IS NOT NULL`, so the planner uses this partial index for it.
CREATE INDEX IF NOT EXISTS transactions_body_trgm_idx ON transactions USING gin (body gin_trgm_ops) WHERE body IS NOT NULL;
