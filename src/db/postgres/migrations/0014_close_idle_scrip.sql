-- SPEC D2 (decision 072): the shipped auto-close, disabled, and the template it mails. An existing
-- install gets them too; an empty database is seeded by the code (src/domain/seed.ts).
INSERT INTO "templates" ("name", "description", "subject", "body", "queue_id", "created_at", "updated_at")
SELECT 'Closing', 'Tells the requesters that their idle ticket is being closed', 'Closing: {{ ticket.subject }}', 'Hello {{ recipient.name | default: "there" }},

We have not heard back from you on ticket #{{ ticket.id }} ("{{ ticket.subject }}") for a while, so we are closing it now. If you still need help, simply reply to this message and the ticket will be reopened.

{{ ticket.url }}', NULL, to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
WHERE EXISTS (SELECT 1 FROM "users") AND NOT EXISTS (SELECT 1 FROM "templates" WHERE lower("name") = 'closing');
--> statement-breakpoint
INSERT INTO "scrips" ("key", "description", "condition", "action", "template_id", "queue_id", "enabled", "sort_order", "config", "created_at", "updated_at")
SELECT 'close_idle_tickets', 'Close idle tickets: when a ticket has been stalled for 40 business hours, mail the requesters the "Closing" template and resolve it', 'on_idle', 'close_idle', NULL, NULL, false, 80, '{"statuses":["stalled"],"hours":40,"business":true,"template":"Closing"}', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
WHERE EXISTS (SELECT 1 FROM "users") AND NOT EXISTS (SELECT 1 FROM "scrips" WHERE "key" = 'close_idle_tickets');
