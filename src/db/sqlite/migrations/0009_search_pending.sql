-- Text search is indexed in batches (see docs/decisions/011-write-path-batching.md). A change
-- writes its new text into search_pending, a plain table, in its own transaction; a worker
-- moves pending rows into message_search every ~100 ms in one go. Committing one FTS5 row at
-- a time cost a new index segment per change (a third of the cost of a create); a batch
-- costs one. Searches read both, so a message is found the moment its change commits.
-- Same keys as message_search: id = ticket_id << 20 | n.
CREATE TABLE search_pending (
  id INTEGER PRIMARY KEY,
  public_text TEXT NOT NULL,
  internal_text TEXT NOT NULL
);
--> statement-breakpoint
DROP TRIGGER message_search_ticket_ai;
--> statement-breakpoint
DROP TRIGGER message_search_ticket_au;
--> statement-breakpoint
DROP TRIGGER message_search_ticket_ad;
--> statement-breakpoint
DROP TRIGGER message_search_message_ai;
--> statement-breakpoint
CREATE TRIGGER message_search_ticket_ai AFTER INSERT ON tickets BEGIN
  INSERT OR REPLACE INTO search_pending(id, public_text, internal_text) VALUES (new.id << 20, new.subject, '');
END;
--> statement-breakpoint
CREATE TRIGGER message_search_ticket_au AFTER UPDATE OF subject ON tickets BEGIN
  DELETE FROM message_search WHERE rowid = old.id << 20;
  INSERT OR REPLACE INTO search_pending(id, public_text, internal_text) VALUES (new.id << 20, new.subject, '');
END;
--> statement-breakpoint
CREATE TRIGGER message_search_ticket_ad AFTER DELETE ON tickets BEGIN
  DELETE FROM message_search WHERE rowid BETWEEN old.id << 20 AND (old.id << 20) + 1048575;
  DELETE FROM search_pending WHERE id BETWEEN old.id << 20 AND (old.id << 20) + 1048575;
END;
--> statement-breakpoint
CREATE TRIGGER message_search_message_ai AFTER INSERT ON transactions WHEN new.body IS NOT NULL BEGIN
  INSERT OR REPLACE INTO search_pending(id, public_text, internal_text) VALUES (
    (new.ticket_id << 20) + (SELECT count(*) FROM transactions WHERE ticket_id = new.ticket_id AND id <= new.id),
    CASE WHEN new.type = 'Comment' THEN '' ELSE new.body END,
    CASE WHEN new.type = 'Comment' THEN new.body ELSE '' END);
END;
