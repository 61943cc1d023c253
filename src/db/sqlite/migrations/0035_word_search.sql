-- Word search (docs/decisions/084-word-search.md): a second FTS5 index beside the trigram one
-- (message_search, 0006), over the same rows with the same keys (rowid = ticket_id << 20 | n)
-- and the same public/internal columns, tokenized into words (unicode61: letters and digits,
-- case and diacritics folded, no stemming). A q made of whole words is answered from it: a
-- common word is one doclist read in rowid order instead of a phrase of trigram lists.
-- Fed by the same search_pending rows (one flush writes both indexes, src/db/sqlite/search.ts).
CREATE VIRTUAL TABLE message_words USING fts5(public_text, internal_text, content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 2');
--> statement-breakpoint
-- As message_search (0007, 0017): incremental merges of 8 segments, no crisis merge on the request thread.
INSERT INTO message_words(message_words, rank) VALUES ('automerge', 8);
--> statement-breakpoint
INSERT INTO message_words(message_words, rank) VALUES ('crisismerge', 1000);
--> statement-breakpoint
-- Internal notes and ratings (whose comment only staff see) go to the internal column, here and
-- in the text the trigger queues from now on (the trigram index gets the same rows).
DROP TRIGGER message_search_message_ai;
--> statement-breakpoint
CREATE TRIGGER message_search_message_ai AFTER INSERT ON transactions WHEN new.body IS NOT NULL BEGIN
  INSERT OR REPLACE INTO search_pending(id, public_text, internal_text) VALUES (
    (new.ticket_id << 20) + (SELECT count(*) FROM transactions WHERE ticket_id = new.ticket_id AND id <= new.id),
    CASE WHEN new.type IN ('Comment', 'Rating') THEN '' ELSE new.body END,
    CASE WHEN new.type IN ('Comment', 'Rating') THEN new.body ELSE '' END);
END;
--> statement-breakpoint
-- What a subject change or a deletion takes out of the trigram index (0009) leaves the word index too.
CREATE TRIGGER message_words_ticket_au AFTER UPDATE OF subject ON tickets BEGIN
  DELETE FROM message_words WHERE rowid = old.id << 20;
END;
--> statement-breakpoint
CREATE TRIGGER message_words_ticket_ad AFTER DELETE ON tickets BEGIN
  DELETE FROM message_words WHERE rowid BETWEEN old.id << 20 AND (old.id << 20) + 1048575;
END;
--> statement-breakpoint
-- An existing install's text, as 0006 indexed it; rows still in search_pending go in with the next flush.
INSERT INTO message_words(rowid, public_text, internal_text)
  SELECT id << 20, subject, '' FROM tickets WHERE (id << 20) NOT IN (SELECT id FROM search_pending);
--> statement-breakpoint
INSERT INTO message_words(rowid, public_text, internal_text)
  SELECT rid, CASE WHEN type IN ('Comment', 'Rating') THEN '' ELSE body END, CASE WHEN type IN ('Comment', 'Rating') THEN body ELSE '' END
  FROM (SELECT (ticket_id << 20) + row_number() OVER (PARTITION BY ticket_id ORDER BY id) AS rid, type, body FROM transactions)
  WHERE body IS NOT NULL AND rid NOT IN (SELECT id FROM search_pending);
--> statement-breakpoint
INSERT INTO message_words(message_words) VALUES ('optimize');
