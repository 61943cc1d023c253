import { configChanged } from '../db/configCache.js';
import { count } from 'drizzle-orm';
import { type Db, first, lockName, transaction, one } from '../db/port.js';
import { queues, queueWatchers, scrips, templates, users } from '../db/tables.js';
import { nowIso } from './clock.js';
import { generatePassword, hashPassword } from './secrets.js';
import { normalizeEmail } from './users.js';

/** The body of the template "Snooze ended" (the migration of an existing install carries the same text). */
export const UNSNOOZE_BODY = `Ticket #{{ ticket.id }} ("{{ ticket.subject }}") in {{ ticket.queue.name }} is {{ ticket.status }} again: {% case transaction.new_value %}{% when "reply" %}the customer wrote while it was snoozed{% when "manual" %}{{ transaction.creator.name | default: "someone" }} woke it{% when "late" %}its snooze ended while hxdesk was not running{% else %}its snooze ended{% endcase %}.
Requester: {{ ticket.requester.name }} <{{ ticket.requester.email }}>
Owner: {{ ticket.owner.name | default: "nobody" }}

{{ ticket.url }}`;

// Customer templates (autoreply, correspondence, resolved) go to requesters and Cc: their
// `ticket.url` is the reader's own portal link. Staff templates go to the owner, AdminCc and
// the team: their `ticket.url` is the ticket page (SPEC C2).
export const TEMPLATES = [
  {
    name: 'Autoreply',
    description: 'Confirms receipt of a new ticket to its requesters',
    subject: 'Re: {{ ticket.subject }}',
    body: `Hello {{ recipient.name | default: "there" }},

Thank you for your message. We have opened ticket #{{ ticket.id }} ("{{ ticket.subject }}") in the {{ ticket.queue.name }} queue and will be in touch soon.

You can follow the ticket and add to it here:
{{ ticket.url }}

Or simply reply to this message.`,
  },
  {
    name: 'Correspondence',
    description: 'Sends a public reply to the requesters and Cc',
    subject: 'Re: {{ ticket.subject }}',
    body: `{{ transaction.body }}

---
Ticket #{{ ticket.id }} ({{ ticket.queue.name }}). Reply to this message, or see the whole conversation:
{{ ticket.url }}`,
  },
  {
    name: 'Staff correspondence',
    description: 'Tells the staff on a ticket about a public reply (owner, AdminCc; the team when unowned)',
    subject: 'Re: {{ ticket.subject }}',
    body: `{% if transaction.outside_sender %}{{ transaction.creator.name | default: transaction.creator.email }} <{{ transaction.creator.email }}>, who is not on ticket #{{ ticket.id }} ({{ ticket.queue.name }}, {{ ticket.status }}, owner: {{ ticket.owner.name | default: "nobody" }}), wrote to it. It is kept as an internal comment and nobody else was mailed; to let them in, choose "Add as Cc" on the ticket.{% else %}{{ transaction.creator.name | default: transaction.creator.email }} replied on ticket #{{ ticket.id }} ({{ ticket.queue.name }}, {{ ticket.status }}, owner: {{ ticket.owner.name | default: "nobody" }}):{% endif %}

{{ transaction.body }}

--
{{ ticket.url }}`,
  },
  {
    name: 'Staff note',
    description: 'Tells the owner and AdminCc about an internal note',
    subject: 'Re: {{ ticket.subject }}',
    body: `Internal note by {{ transaction.creator.name | default: transaction.creator.email }} on ticket #{{ ticket.id }} ({{ ticket.queue.name }}). It was not sent to the requester.

{{ transaction.body }}

--
{{ ticket.url }}`,
  },
  {
    name: 'New ticket',
    description: 'Tells the staff watching a queue about a new ticket',
    subject: 'New ticket: {{ ticket.subject }}',
    body: `New ticket #{{ ticket.id }} in {{ ticket.queue.name }} from {{ ticket.requester.name }} <{{ ticket.requester.email }}>{% if ticket.cc.size > 0 %}
Cc: {% for p in ticket.cc %}{{ p.name }} <{{ p.email }}>{% unless forloop.last %}, {% endunless %}{% endfor %}{% endif %}
Owner: {{ ticket.owner.name | default: "nobody" }}   Team: {{ ticket.team.name | default: "none" }}

{{ ticket.description }}

--
{{ ticket.url }}`,
  },
  {
    name: 'Owner notice',
    description: 'Tells an agent that a ticket is now theirs',
    subject: 'Ticket #{{ ticket.id }} is assigned to you: {{ ticket.subject }}',
    body: `{{ ticket.owner.name | default: ticket.owner.email }},

Ticket #{{ ticket.id }} ("{{ ticket.subject }}") in {{ ticket.queue.name }} is now owned by you.
Requester: {{ ticket.requester.name }} <{{ ticket.requester.email }}>
Status: {{ ticket.status }}

{{ ticket.url }}`,
  },
  {
    name: 'Team notice',
    description: 'Tells a team that a ticket was handed to it',
    subject: 'Ticket #{{ ticket.id }} moved to team {{ ticket.team.name }}: {{ ticket.subject }}',
    body: `Ticket #{{ ticket.id }} ("{{ ticket.subject }}") is now with team {{ ticket.team.name }}.
Queue: {{ ticket.queue.name }}   Status: {{ ticket.status }}   Owner: {{ ticket.owner.name | default: "nobody" }}

{{ ticket.url }}`,
  },
  {
    name: 'Resolved',
    description: 'Tells the requesters that their ticket was resolved',
    subject: 'Resolved: {{ ticket.subject }}',
    body: `Hello {{ recipient.name | default: "there" }},

Ticket #{{ ticket.id }} ("{{ ticket.subject }}") has been resolved. If something is still wrong, simply reply to this message and the ticket will be reopened.

{{ ticket.url }}
{%- if ticket.csat_url != "" %}

How did we do? Rate our answer (opening a link only shows the form; you send it there):
{{ ticket.csat_url }}
Good: {{ ticket.csat_url }}?rating=good
Okay: {{ ticket.csat_url }}?rating=okay
Bad: {{ ticket.csat_url }}?rating=bad
{%- endif %}`,
  },
  // SPEC D2: what the shipped "Close idle tickets" scrip (close_idle) mails before it resolves.
  {
    name: 'Closing',
    description: 'Tells the requesters that their idle ticket is being closed',
    subject: 'Closing: {{ ticket.subject }}',
    body: `Hello {{ recipient.name | default: "there" }},

We have not heard back from you on ticket #{{ ticket.id }} ("{{ ticket.subject }}") for a while, so we are closing it now. If you still need help, simply reply to this message and the ticket will be reopened.

{{ ticket.url }}`,
  },
  // SPEC D2 (decision 071); migration 0028 (pg 0015) brings an existing install the same template.
  {
    name: 'Snooze ended',
    description: 'Tells the owner (or the staff watchers of an unowned ticket) that a snoozed ticket woke up',
    subject: 'Woke up: {{ ticket.subject }}',
    body: UNSNOOZE_BODY,
  },
];

interface ShippedScrip {
  key: string;
  description: string;
  condition: string;
  action: string;
  template: string | null;
  sort_order: number;
  enabled?: boolean;
  config?: Record<string, unknown>;
}

/** SPEC D2: the shipped auto-close, off until an admin turns it on (decision 072). */
export const CLOSE_IDLE_SCRIP: ShippedScrip = {
  key: 'close_idle_tickets',
  description:
    'Close idle tickets: when a ticket has been stalled for 40 business hours, mail the requesters the "Closing" template and resolve it',
  condition: 'on_idle',
  action: 'close_idle',
  template: null,
  sort_order: 80,
  enabled: false,
  config: { statuses: ['stalled'], hours: 40, business: true, template: 'Closing' },
};

// Who gets what (SPEC C2). Migration 0013 brings an existing install to the same set.
export const SCRIPS: ShippedScrip[] = [
  {
    key: 'autoreply_on_create',
    description: 'On create, confirm receipt to the requesters',
    condition: 'on_create',
    action: 'autoreply_requester',
    template: 'Autoreply',
    sort_order: 10,
  },
  {
    key: 'notify_staff_on_create',
    description: 'On create, tell the staff watchers (owner, ticket and queue AdminCc, the team)',
    condition: 'on_create',
    action: 'notify_staff_watchers',
    template: 'New ticket',
    sort_order: 15,
  },
  {
    key: 'notify_requester_on_correspond',
    description: 'On a public reply, send it to the requesters (To) and Cc',
    condition: 'on_correspond',
    action: 'notify_requesters_and_cc',
    template: 'Correspondence',
    sort_order: 20,
  },
  {
    key: 'notify_owner_on_correspond',
    description: 'On a public reply, send a staff copy to the owner and AdminCc',
    condition: 'on_correspond',
    action: 'notify_owner_and_admin_cc',
    template: 'Staff correspondence',
    sort_order: 30,
  },
  {
    key: 'notify_staff_on_customer_reply',
    description: 'On a reply from a requester or Cc: the owner, or the staff watchers when unowned',
    condition: 'on_customer_correspond',
    action: 'notify_owner_or_staff_watchers',
    template: 'Staff correspondence',
    sort_order: 35,
  },
  {
    key: 'notify_staff_on_comment',
    description: 'On an internal note, tell the owner and AdminCc',
    condition: 'on_comment',
    action: 'notify_owner_and_admin_cc',
    template: 'Staff note',
    sort_order: 36,
  },
  {
    key: 'notify_owner_on_owner_change',
    description: 'On an owner change, tell the new owner',
    condition: 'on_owner_change',
    action: 'notify_owner',
    template: 'Owner notice',
    sort_order: 40,
  },
  {
    key: 'notify_team_on_team_change',
    description: 'On a team change, tell the new team',
    condition: 'on_team_change',
    action: 'notify_team',
    template: 'Team notice',
    sort_order: 50,
  },
  {
    key: 'notify_requester_on_resolve',
    description: 'When a ticket is resolved, tell the requesters',
    condition: 'on_resolve',
    action: 'notify_requester',
    template: 'Resolved',
    sort_order: 60,
  },
  {
    key: 'open_inactive_on_correspond',
    description: 'On a public reply to an inactive ticket, reopen it',
    condition: 'on_correspond',
    action: 'open_inactive',
    template: null,
    sort_order: 70,
  },
  // SPEC D2 (decision 071); migration 0028 (pg 0015) brings an existing install the same scrip.
  {
    key: 'notify_owner_on_unsnooze',
    description: 'When a snoozed ticket wakes up, tell the owner (or the staff watchers when unowned)',
    condition: 'on_unsnooze',
    action: 'notify_owner_or_staff_watchers',
    template: 'Snooze ended',
    sort_order: 75,
  },
  // SPEC D6; migration 0022 (pg 0009) brings an existing install the same scrip.
  {
    key: 'open_on_staff_reply',
    description: "On a staff member's public reply or Take, move a new ticket to open",
    condition: 'on_staff_take_up',
    action: 'open_new',
    template: null,
    sort_order: 65,
  },
  // SPEC D2; migration 0027 (pg 0014) brings an existing install the same scrip and its template.
  CLOSE_IDLE_SCRIP,
];

export interface SeedResult {
  seeded: boolean;
  adminEmail?: string;
  generatedPassword?: string;
}

/** First start on an empty database (SPEC B2): an admin, the General queue, default templates and scrips. */
export async function seedIfEmpty(db: Db, opts: { adminEmail: string; adminPassword?: string }): Promise<SeedResult> {
  const { n } = (await first(db.select({ n: count() }).from(users)))!;
  if (n > 0) return { seeded: false };
  const generatedPassword = opts.adminPassword ? undefined : generatePassword();
  const password_hash = await hashPassword(opts.adminPassword ?? generatedPassword!);
  const now = nowIso(db);
  const stamp = { created_at: now, updated_at: now };
  const email = normalizeEmail(opts.adminEmail);
  await transaction(db, async (tx) => {
    // Re-check inside the transaction: two processes starting at once must not both seed. They
    // take turns on a lock (decision 058), so the second reads what the first wrote.
    await lockName(tx, 'seed');
    if ((await first(tx.select({ n: count() }).from(users)))!.n > 0) return;
    await configChanged(tx); // the first queue, templates and scrips: every process reads them afresh (decision 067)
    const admin = await one(
      tx
        .insert(users)
        .values({ email, name: 'Administrator', role: 'admin', password_hash, ...stamp })
        .returning(),
    );
    const general = await one(
      tx
        .insert(queues)
        .values({ name: 'General', description: 'Default queue', portal_create: true, ...stamp })
        .returning(),
    );
    // Someone hears of new mail from the first day (SPEC C2 staff watchers): the administrator
    // watches General as its AdminCc until they give it a team or other AdminCc.
    await tx
      .insert(queueWatchers)
      .values({ queue_id: general.id, role: 'admin_cc', user_id: admin.id, created_at: now });
    const ids = new Map<string, number>();
    for (const t of TEMPLATES)
      ids.set(
        t.name,
        (
          await one(
            tx
              .insert(templates)
              .values({ ...t, ...stamp })
              .returning(),
          )
        ).id,
      );
    for (const s of SCRIPS) {
      await tx.insert(scrips).values({
        key: s.key,
        description: s.description,
        condition: s.condition,
        action: s.action,
        template_id: s.template ? ids.get(s.template)! : null,
        sort_order: s.sort_order,
        enabled: s.enabled ?? true,
        config: JSON.stringify(s.config ?? {}),
        ...stamp,
      });
    }
  });
  return { seeded: true, adminEmail: email, generatedPassword };
}
