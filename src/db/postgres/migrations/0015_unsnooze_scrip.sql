-- SPEC D2 (decision 071): a snoozed ticket's wake-up tells its owner, or the staff watchers of an
-- unowned ticket (a default scrip and its template, so admins can change or turn them off).
-- An existing install gets them too; an empty database is seeded by the code (src/domain/seed.ts).
INSERT INTO "templates" ("name", "description", "subject", "body", "created_at", "updated_at")
SELECT 'Snooze ended', 'Tells the owner (or the staff watchers of an unowned ticket) that a snoozed ticket woke up', 'Woke up: {{ ticket.subject }}', 'Ticket #{{ ticket.id }} ("{{ ticket.subject }}") in {{ ticket.queue.name }} is {{ ticket.status }} again: {% case transaction.new_value %}{% when "reply" %}the customer wrote while it was snoozed{% when "manual" %}{{ transaction.creator.name | default: "someone" }} woke it{% when "late" %}its snooze ended while hxdesk was not running{% else %}its snooze ended{% endcase %}.
Requester: {{ ticket.requester.name }} <{{ ticket.requester.email }}>
Owner: {{ ticket.owner.name | default: "nobody" }}

{{ ticket.url }}', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
WHERE EXISTS (SELECT 1 FROM "users") AND NOT EXISTS (SELECT 1 FROM "templates" WHERE lower("name") = lower('Snooze ended'));
--> statement-breakpoint
INSERT INTO "scrips" ("key", "description", "condition", "action", "template_id", "queue_id", "enabled", "sort_order", "config", "created_at", "updated_at")
SELECT 'notify_owner_on_unsnooze', 'When a snoozed ticket wakes up, tell the owner (or the staff watchers when unowned)', 'on_unsnooze', 'notify_owner_or_staff_watchers', (SELECT "id" FROM "templates" WHERE lower("name") = lower('Snooze ended')), NULL, true, 75, '{}', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
WHERE EXISTS (SELECT 1 FROM "users") AND NOT EXISTS (SELECT 1 FROM "scrips" WHERE "key" = 'notify_owner_on_unsnooze');
