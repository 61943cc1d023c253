-- Full-text search for GET /tickets?q= : case-insensitive substring over ticket subjects and
-- every transaction body (the Create transaction carries the description). Trigram FTS5
-- tables use the base tables as external content, so text is stored once; triggers keep
-- them in step with every write, inside the same SQL transaction.
CREATE VIRTUAL TABLE tickets_fts USING fts5(subject, content='tickets', content_rowid='id', tokenize='trigram');
--> statement-breakpoint
CREATE VIRTUAL TABLE transactions_fts USING fts5(body, content='transactions', content_rowid='id', tokenize='trigram');
--> statement-breakpoint
CREATE TRIGGER tickets_fts_ai AFTER INSERT ON tickets BEGIN
  INSERT INTO tickets_fts(rowid, subject) VALUES (new.id, new.subject);
END;
--> statement-breakpoint
CREATE TRIGGER tickets_fts_ad AFTER DELETE ON tickets BEGIN
  INSERT INTO tickets_fts(tickets_fts, rowid, subject) VALUES ('delete', old.id, old.subject);
END;
--> statement-breakpoint
CREATE TRIGGER tickets_fts_au AFTER UPDATE OF subject ON tickets BEGIN
  INSERT INTO tickets_fts(tickets_fts, rowid, subject) VALUES ('delete', old.id, old.subject);
  INSERT INTO tickets_fts(rowid, subject) VALUES (new.id, new.subject);
END;
--> statement-breakpoint
CREATE TRIGGER transactions_fts_ai AFTER INSERT ON transactions WHEN new.body IS NOT NULL BEGIN
  INSERT INTO transactions_fts(rowid, body) VALUES (new.id, new.body);
END;
--> statement-breakpoint
CREATE TRIGGER transactions_fts_ad AFTER DELETE ON transactions WHEN old.body IS NOT NULL BEGIN
  INSERT INTO transactions_fts(transactions_fts, rowid, body) VALUES ('delete', old.id, old.body);
END;
--> statement-breakpoint
CREATE TRIGGER transactions_fts_au AFTER UPDATE OF body ON transactions BEGIN
  INSERT INTO transactions_fts(transactions_fts, rowid, body) SELECT 'delete', old.id, old.body WHERE old.body IS NOT NULL;
  INSERT INTO transactions_fts(rowid, body) SELECT new.id, new.body WHERE new.body IS NOT NULL;
END;
