-- People search by any part of a name or address (docs/decisions/090-people-search-index.md): an
-- FTS5 trigram index over users' name and email, so "name or address contains q" (q of three or
-- more characters) reads the matching people, newest first, instead of testing every one of the
-- newest 20,000 users with LIKE. Contentless (the text stays in users; a match is joined back by
-- rowid = users.id), case folded as the trigram tokenizer does by default (case_sensitive 0) and
-- diacritics kept (remove_diacritics 0): "émile" finds "Émile" and "emile" does not, as the
-- LIKE / hx_contains test it replaces. Kept by the triggers below, in the writer's own statement.
CREATE VIRTUAL TABLE users_people USING fts5(name, email, content='', contentless_delete=1, tokenize='trigram');
--> statement-breakpoint
CREATE TRIGGER users_people_ai AFTER INSERT ON users BEGIN
  INSERT INTO users_people(rowid, name, email) VALUES (new.id, new.name, new.email);
END;
--> statement-breakpoint
CREATE TRIGGER users_people_au AFTER UPDATE OF name, email ON users BEGIN
  DELETE FROM users_people WHERE rowid = old.id;
  INSERT INTO users_people(rowid, name, email) VALUES (new.id, new.name, new.email);
END;
--> statement-breakpoint
CREATE TRIGGER users_people_ad AFTER DELETE ON users BEGIN
  DELETE FROM users_people WHERE rowid = old.id;
END;
--> statement-breakpoint
-- An existing install's people (about 1 s for 20,000 users on the 2-core bench machine).
INSERT INTO users_people(rowid, name, email) SELECT id, name, email FROM users;
--> statement-breakpoint
INSERT INTO users_people(users_people) VALUES ('optimize');
