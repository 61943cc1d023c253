-- Word search (docs/decisions/084-word-search.md), the counterpart of SQLite's message_words
-- (FTS5 unicode61, diacritics removed, no stemming): a tsvector of each subject and message body
-- under the configuration hx_words (the `simple` dictionary — no stemming, no stop words — after
-- `unaccent`), in GIN expression indexes beside the trigram ones of 0001. The text is first cut
-- at the characters that make PostgreSQL's parser read e-mail addresses, host names, paths,
-- versions or hyphenated words as one token (@ . / - _ : + and the like), so that the words are
-- the runs of letters and digits, as unicode61 cuts them: both stores find the same tickets.
-- unaccent is a trusted extension (PostgreSQL 13+): the database owner may create it.
CREATE EXTENSION IF NOT EXISTS unaccent;
--> statement-breakpoint
CREATE TEXT SEARCH CONFIGURATION hx_words (COPY = pg_catalog.simple);
--> statement-breakpoint
ALTER TEXT SEARCH CONFIGURATION hx_words
  ALTER MAPPING FOR asciiword, word, numword, asciihword, hword, numhword, hword_asciipart, hword_part, hword_numpart
  WITH unaccent, simple;
--> statement-breakpoint
-- A tsvector holds at most 1 MB of distinct words; a body past that (a pasted log) is indexed by
-- its first 64 Ki characters rather than refused (the write must not fail). IMMUTABLE, as an
-- index expression must be: the configuration and dictionaries are fixed by this migration, and
-- the search path is the migration's own (autovacuum and restores run with another).
CREATE FUNCTION hx_words(t text) RETURNS tsvector LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
BEGIN
  RETURN to_tsvector('hx_words', translate(t, '@./\-_:+<>&;=?#%~|*''"', '                      '));
EXCEPTION WHEN program_limit_exceeded THEN
  RETURN to_tsvector('hx_words', translate(left(t, 65536), '@./\-_:+<>&;=?#%~|*''"', '                      '));
END
$$;
--> statement-breakpoint
ALTER FUNCTION hx_words(text) SET search_path FROM CURRENT;
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS tickets_subject_words_idx ON tickets USING gin (hx_words(subject));
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS transactions_body_words_idx ON transactions USING gin (hx_words(body)) WHERE body IS NOT NULL;
