-- SPEC D4 (decision 082): a rating's comment is staff-only text, like an internal note. The search
-- index keeps it in the internal column from now on (the insert trigger of migration 0009 with
-- Rating beside Comment), and the ratings already indexed as public text move there.
DROP TRIGGER message_search_message_ai;
--> statement-breakpoint
CREATE TRIGGER message_search_message_ai AFTER INSERT ON transactions WHEN new.body IS NOT NULL BEGIN
  INSERT OR REPLACE INTO search_pending(id, public_text, internal_text) VALUES (
    (new.ticket_id << 20) + (SELECT count(*) FROM transactions WHERE ticket_id = new.ticket_id AND id <= new.id),
    CASE WHEN new.type IN ('Comment', 'Rating') THEN '' ELSE new.body END,
    CASE WHEN new.type IN ('Comment', 'Rating') THEN new.body ELSE '' END);
END;
--> statement-breakpoint
DELETE FROM message_search WHERE rowid IN (
  SELECT (r.ticket_id << 20) + (SELECT count(*) FROM transactions x WHERE x.ticket_id = r.ticket_id AND x.id <= r.id)
  FROM transactions r WHERE r.type = 'Rating' AND r.body IS NOT NULL);
--> statement-breakpoint
INSERT OR REPLACE INTO search_pending(id, public_text, internal_text)
  SELECT (r.ticket_id << 20) + (SELECT count(*) FROM transactions x WHERE x.ticket_id = r.ticket_id AND x.id <= r.id), '', r.body
  FROM transactions r WHERE r.type = 'Rating' AND r.body IS NOT NULL;
--> statement-breakpoint
-- An existing install's "Resolved" template gets the rating links when it is still the text the
-- seed wrote before D4 (an edited template is left as its admin wrote it: decision 082).
UPDATE `templates` SET `body` = 'Hello {{ recipient.name | default: "there" }},

Ticket #{{ ticket.id }} ("{{ ticket.subject }}") has been resolved. If something is still wrong, simply reply to this message and the ticket will be reopened.

{{ ticket.url }}
{%- if ticket.csat_url != "" %}

How did we do? Rate our answer (opening a link only shows the form; you send it there):
{{ ticket.csat_url }}
Good: {{ ticket.csat_url }}?rating=good
Okay: {{ ticket.csat_url }}?rating=okay
Bad: {{ ticket.csat_url }}?rating=bad
{%- endif %}'
WHERE `name` = 'Resolved' AND `body` = 'Hello {{ recipient.name | default: "there" }},

Ticket #{{ ticket.id }} ("{{ ticket.subject }}") has been resolved. If something is still wrong, simply reply to this message and the ticket will be reopened.

{{ ticket.url }}';
