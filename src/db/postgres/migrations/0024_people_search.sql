-- People search by any part of a name or address (docs/decisions/090-people-search-index.md):
-- pg_trgm GIN indexes (the extension comes from 0001) on users' name and email, so the people
-- search's `name ILIKE '%q%' OR email ILIKE '%q%'` (q of three or more characters) is a bitmap of
-- the matching people instead of a test of every one of the newest 20,000 users. ILIKE on the
-- columns themselves, as 0001's ticket text indexes: the same case folding as before, no lower().
CREATE INDEX IF NOT EXISTS users_name_trgm_idx ON users USING gin (name gin_trgm_ops);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS users_email_trgm_idx ON users USING gin (email gin_trgm_ops);
