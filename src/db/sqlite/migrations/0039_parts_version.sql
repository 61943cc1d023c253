-- A version of what a list shows beside each ticket's row
-- (docs/decisions/113-a-list-pages-parts-kept-by-ticket-on-sqlite.md): its description (the body
-- of its Create transaction), tags, custom values, own watchers and links. The SQLite store keeps
-- a list page's parts in memory by ticket (src/db/sqlite/partsKept.ts) and uses them while this
-- version is the one they were read under. The triggers move it on every write to those tables,
-- whatever code path or process writes: a ticket with no row is at version 0. SQLite's alone (not
-- in the drizzle schema): PostgreSQL's store keeps no parts.
CREATE TABLE ticket_parts_version (ticket_id integer PRIMARY KEY NOT NULL, version integer NOT NULL);
--> statement-breakpoint
CREATE TRIGGER parts_version_txn_ai AFTER INSERT ON transactions WHEN new.type = 'Create' BEGIN
  INSERT INTO ticket_parts_version (ticket_id, version) VALUES (new.ticket_id, 1)
    ON CONFLICT (ticket_id) DO UPDATE SET version = version + 1;
END;
--> statement-breakpoint
CREATE TRIGGER parts_version_txn_au AFTER UPDATE OF ticket_id, type, body ON transactions
WHEN old.type = 'Create' OR new.type = 'Create' BEGIN
  INSERT INTO ticket_parts_version (ticket_id, version) VALUES (old.ticket_id, 1)
    ON CONFLICT (ticket_id) DO UPDATE SET version = version + 1;
  INSERT INTO ticket_parts_version (ticket_id, version) VALUES (new.ticket_id, 1)
    ON CONFLICT (ticket_id) DO UPDATE SET version = version + 1;
END;
--> statement-breakpoint
CREATE TRIGGER parts_version_txn_ad AFTER DELETE ON transactions WHEN old.type = 'Create' BEGIN
  INSERT INTO ticket_parts_version (ticket_id, version) VALUES (old.ticket_id, 1)
    ON CONFLICT (ticket_id) DO UPDATE SET version = version + 1;
END;
--> statement-breakpoint
CREATE TRIGGER parts_version_tags_ai AFTER INSERT ON ticket_tags BEGIN
  INSERT INTO ticket_parts_version (ticket_id, version) VALUES (new.ticket_id, 1)
    ON CONFLICT (ticket_id) DO UPDATE SET version = version + 1;
END;
--> statement-breakpoint
CREATE TRIGGER parts_version_tags_au AFTER UPDATE ON ticket_tags BEGIN
  INSERT INTO ticket_parts_version (ticket_id, version) VALUES (old.ticket_id, 1)
    ON CONFLICT (ticket_id) DO UPDATE SET version = version + 1;
  INSERT INTO ticket_parts_version (ticket_id, version) VALUES (new.ticket_id, 1)
    ON CONFLICT (ticket_id) DO UPDATE SET version = version + 1;
END;
--> statement-breakpoint
CREATE TRIGGER parts_version_tags_ad AFTER DELETE ON ticket_tags BEGIN
  INSERT INTO ticket_parts_version (ticket_id, version) VALUES (old.ticket_id, 1)
    ON CONFLICT (ticket_id) DO UPDATE SET version = version + 1;
END;
--> statement-breakpoint
CREATE TRIGGER parts_version_values_ai AFTER INSERT ON ticket_custom_values BEGIN
  INSERT INTO ticket_parts_version (ticket_id, version) VALUES (new.ticket_id, 1)
    ON CONFLICT (ticket_id) DO UPDATE SET version = version + 1;
END;
--> statement-breakpoint
CREATE TRIGGER parts_version_values_au AFTER UPDATE ON ticket_custom_values BEGIN
  INSERT INTO ticket_parts_version (ticket_id, version) VALUES (old.ticket_id, 1)
    ON CONFLICT (ticket_id) DO UPDATE SET version = version + 1;
  INSERT INTO ticket_parts_version (ticket_id, version) VALUES (new.ticket_id, 1)
    ON CONFLICT (ticket_id) DO UPDATE SET version = version + 1;
END;
--> statement-breakpoint
CREATE TRIGGER parts_version_values_ad AFTER DELETE ON ticket_custom_values BEGIN
  INSERT INTO ticket_parts_version (ticket_id, version) VALUES (old.ticket_id, 1)
    ON CONFLICT (ticket_id) DO UPDATE SET version = version + 1;
END;
--> statement-breakpoint
CREATE TRIGGER parts_version_watchers_ai AFTER INSERT ON ticket_watchers BEGIN
  INSERT INTO ticket_parts_version (ticket_id, version) VALUES (new.ticket_id, 1)
    ON CONFLICT (ticket_id) DO UPDATE SET version = version + 1;
END;
--> statement-breakpoint
CREATE TRIGGER parts_version_watchers_au AFTER UPDATE ON ticket_watchers BEGIN
  INSERT INTO ticket_parts_version (ticket_id, version) VALUES (old.ticket_id, 1)
    ON CONFLICT (ticket_id) DO UPDATE SET version = version + 1;
  INSERT INTO ticket_parts_version (ticket_id, version) VALUES (new.ticket_id, 1)
    ON CONFLICT (ticket_id) DO UPDATE SET version = version + 1;
END;
--> statement-breakpoint
CREATE TRIGGER parts_version_watchers_ad AFTER DELETE ON ticket_watchers BEGIN
  INSERT INTO ticket_parts_version (ticket_id, version) VALUES (old.ticket_id, 1)
    ON CONFLICT (ticket_id) DO UPDATE SET version = version + 1;
END;
--> statement-breakpoint
-- A link belongs to both its tickets' parts.
CREATE TRIGGER parts_version_links_ai AFTER INSERT ON ticket_links BEGIN
  INSERT INTO ticket_parts_version (ticket_id, version) VALUES (new.base_id, 1)
    ON CONFLICT (ticket_id) DO UPDATE SET version = version + 1;
  INSERT INTO ticket_parts_version (ticket_id, version) VALUES (new.target_id, 1)
    ON CONFLICT (ticket_id) DO UPDATE SET version = version + 1;
END;
--> statement-breakpoint
CREATE TRIGGER parts_version_links_au AFTER UPDATE ON ticket_links BEGIN
  INSERT INTO ticket_parts_version (ticket_id, version) VALUES (old.base_id, 1)
    ON CONFLICT (ticket_id) DO UPDATE SET version = version + 1;
  INSERT INTO ticket_parts_version (ticket_id, version) VALUES (old.target_id, 1)
    ON CONFLICT (ticket_id) DO UPDATE SET version = version + 1;
  INSERT INTO ticket_parts_version (ticket_id, version) VALUES (new.base_id, 1)
    ON CONFLICT (ticket_id) DO UPDATE SET version = version + 1;
  INSERT INTO ticket_parts_version (ticket_id, version) VALUES (new.target_id, 1)
    ON CONFLICT (ticket_id) DO UPDATE SET version = version + 1;
END;
--> statement-breakpoint
CREATE TRIGGER parts_version_links_ad AFTER DELETE ON ticket_links BEGIN
  INSERT INTO ticket_parts_version (ticket_id, version) VALUES (old.base_id, 1)
    ON CONFLICT (ticket_id) DO UPDATE SET version = version + 1;
  INSERT INTO ticket_parts_version (ticket_id, version) VALUES (old.target_id, 1)
    ON CONFLICT (ticket_id) DO UPDATE SET version = version + 1;
END;
--> statement-breakpoint
CREATE TRIGGER parts_version_tickets_ad AFTER DELETE ON tickets BEGIN
  DELETE FROM ticket_parts_version WHERE ticket_id = old.id;
END;
