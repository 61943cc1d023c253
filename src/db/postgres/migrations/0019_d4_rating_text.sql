-- SPEC D4 (decision 082): an existing install's "Resolved" template gets the rating links. (The
-- search side needs no migration here: PostgreSQL's queries say which entries are staff-only.)
UPDATE "templates" SET "body" = 'Hello {{ recipient.name | default: "there" }},

Ticket #{{ ticket.id }} ("{{ ticket.subject }}") has been resolved. If something is still wrong, simply reply to this message and the ticket will be reopened.

{{ ticket.url }}
{%- if ticket.csat_url != "" %}

How did we do? Rate our answer (opening a link only shows the form; you send it there):
{{ ticket.csat_url }}
Good: {{ ticket.csat_url }}?rating=good
Okay: {{ ticket.csat_url }}?rating=okay
Bad: {{ ticket.csat_url }}?rating=bad
{%- endif %}'
WHERE "name" = 'Resolved' AND "body" = 'Hello {{ recipient.name | default: "there" }},

Ticket #{{ ticket.id }} ("{{ ticket.subject }}") has been resolved. If something is still wrong, simply reply to this message and the ticket will be reopened.

{{ ticket.url }}';
