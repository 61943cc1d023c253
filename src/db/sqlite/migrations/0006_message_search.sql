-- Search index, third shape (see docs/performance.md): one contentless FTS5 row per message,
-- whose rowid carries the ticket: rowid = ticket_id << 20 | n (n = 0 for the subject, else
-- the message's place among the ticket's transactions). A match yields ticket ids by a shift,
-- with no lookup, and a new message tokenizes only itself — unlike 0004's per-ticket document,
-- which re-indexed the whole conversation on every reply. Internal notes go in their own
-- column so requesters can be kept to the public one.
DROP TRIGGER IF EXISTS ticket_search_ai;
--> statement-breakpoint
DROP TRIGGER IF EXISTS ticket_search_au;
--> statement-breakpoint
DROP TRIGGER IF EXISTS ticket_search_ad;
--> statement-breakpoint
DROP TRIGGER IF EXISTS ticket_search_public_ai;
--> statement-breakpoint
DROP TRIGGER IF EXISTS ticket_search_internal_ai;
--> statement-breakpoint
DROP TABLE IF EXISTS ticket_search;
--> statement-breakpoint
CREATE VIRTUAL TABLE message_search USING fts5(public_text, internal_text, content='', contentless_delete=1, tokenize='trigram');
--> statement-breakpoint
INSERT INTO message_search(rowid, public_text, internal_text) SELECT id << 20, subject, '' FROM tickets;
--> statement-breakpoint
INSERT INTO message_search(rowid, public_text, internal_text)
  SELECT (ticket_id << 20) + n, CASE WHEN type = 'Comment' THEN '' ELSE body END, CASE WHEN type = 'Comment' THEN body ELSE '' END
  FROM (SELECT ticket_id, type, body, row_number() OVER (PARTITION BY ticket_id ORDER BY id) AS n FROM transactions)
  WHERE body IS NOT NULL;
--> statement-breakpoint
CREATE TRIGGER message_search_ticket_ai AFTER INSERT ON tickets BEGIN
  INSERT INTO message_search(rowid, public_text, internal_text) VALUES (new.id << 20, new.subject, '');
END;
--> statement-breakpoint
CREATE TRIGGER message_search_ticket_au AFTER UPDATE OF subject ON tickets BEGIN
  DELETE FROM message_search WHERE rowid = old.id << 20;
  INSERT INTO message_search(rowid, public_text, internal_text) VALUES (new.id << 20, new.subject, '');
END;
--> statement-breakpoint
CREATE TRIGGER message_search_ticket_ad AFTER DELETE ON tickets BEGIN
  DELETE FROM message_search WHERE rowid BETWEEN old.id << 20 AND (old.id << 20) + 1048575;
END;
--> statement-breakpoint
CREATE TRIGGER message_search_message_ai AFTER INSERT ON transactions WHEN new.body IS NOT NULL BEGIN
  INSERT INTO message_search(rowid, public_text, internal_text) VALUES (
    (new.ticket_id << 20) + (SELECT count(*) FROM transactions WHERE ticket_id = new.ticket_id AND id <= new.id),
    CASE WHEN new.type = 'Comment' THEN '' ELSE new.body END,
    CASE WHEN new.type = 'Comment' THEN new.body ELSE '' END);
END;
