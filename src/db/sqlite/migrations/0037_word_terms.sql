-- The words of the word index (docs/decisions/092-word-search-by-terms.md): every term
-- message_words holds, once, so that a word search's last word, a prefix, is asked of the index
-- as the few terms it begins ("passw" → "password" OR "passwords") instead of FTS5's prefix
-- query, which merges every matching term's whole doclist before it returns a row (8–11 ms for
-- one common word at 100k tickets, whatever the LIMIT; the terms themselves: 0.3 ms for the
-- newest 2,000). A superset is harmless (a term no message holds any more matches nothing), so
-- rows are only ever added: each flush adds the terms of the text it indexes (src/db/sqlite/search.ts).
CREATE TABLE word_terms (term TEXT PRIMARY KEY) WITHOUT ROWID;
--> statement-breakpoint
-- An existing install's terms, read once from the index's own vocabulary (1.3 s at 100k tickets).
CREATE VIRTUAL TABLE temp.hx_migrate_terms USING fts5vocab(main, message_words, row);
--> statement-breakpoint
INSERT INTO word_terms(term) SELECT term FROM temp.hx_migrate_terms;
--> statement-breakpoint
DROP TABLE temp.hx_migrate_terms;
