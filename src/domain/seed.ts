import { sql } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { queues, scrips, templates, users } from '../db/schema.js';
import { nowIso } from './actor.js';
import { generatePassword, hashPassword } from './secrets.js';
import { normalizeEmail } from './users.js';

const TEMPLATES = [
  {
    name: 'Autoreply', description: 'Confirms receipt of a new ticket to its requester',
    subject: 'Re: {{ ticket.subject }}',
    body: `Hello {{ ticket.requester.name | default: "there" }},

Thank you for your message. We have opened ticket #{{ ticket.id }} ("{{ ticket.subject }}") in the {{ ticket.queue.name }} queue and will be in touch soon.

Please keep [hxdesk #{{ ticket.id }}] in the subject when you reply.

{{ ticket.url }}`,
  },
  {
    name: 'Correspondence', description: 'Sends a public reply to the people on the ticket',
    subject: 'Re: {{ ticket.subject }}',
    body: `{{ transaction.body }}

--
{{ transaction.creator.name | default: transaction.creator.email }} on ticket #{{ ticket.id }}
{{ ticket.url }}`,
  },
  {
    name: 'Owner notice', description: 'Tells an agent that a ticket is now theirs',
    subject: 'Ticket #{{ ticket.id }} is assigned to you: {{ ticket.subject }}',
    body: `{{ ticket.owner.name | default: ticket.owner.email }},

Ticket #{{ ticket.id }} ("{{ ticket.subject }}") in {{ ticket.queue.name }} is now owned by you.
Requester: {{ ticket.requester.name }} <{{ ticket.requester.email }}>
Status: {{ ticket.status }}

{{ ticket.url }}`,
  },
  {
    name: 'Team notice', description: 'Tells a team that a ticket was handed to it',
    subject: 'Ticket #{{ ticket.id }} moved to team {{ ticket.team.name }}: {{ ticket.subject }}',
    body: `Ticket #{{ ticket.id }} ("{{ ticket.subject }}") is now with team {{ ticket.team.name }}.
Queue: {{ ticket.queue.name }}   Status: {{ ticket.status }}   Owner: {{ ticket.owner.name | default: "nobody" }}

{{ ticket.url }}`,
  },
  {
    name: 'Resolved', description: 'Tells the requester that their ticket was resolved',
    subject: 'Resolved: {{ ticket.subject }}',
    body: `Hello {{ ticket.requester.name | default: "there" }},

Ticket #{{ ticket.id }} ("{{ ticket.subject }}") has been resolved. If something is still wrong, simply reply to this message and the ticket will be reopened.

{{ ticket.url }}`,
  },
];

const SCRIPS = [
  { key: 'autoreply_on_create', description: 'On create, confirm receipt to the requester', condition: 'on_create', action: 'autoreply_requester', template: 'Autoreply' },
  { key: 'notify_requester_on_correspond', description: 'On a public reply, send it to the requester', condition: 'on_correspond', action: 'notify_requester', template: 'Correspondence' },
  { key: 'notify_owner_on_correspond', description: 'On a public reply, send it to the owner', condition: 'on_correspond', action: 'notify_owner', template: 'Correspondence' },
  { key: 'notify_owner_on_owner_change', description: 'On an owner change, tell the new owner', condition: 'on_owner_change', action: 'notify_owner', template: 'Owner notice' },
  { key: 'notify_team_on_team_change', description: 'On a team change, tell the new team', condition: 'on_team_change', action: 'notify_team', template: 'Team notice' },
  { key: 'notify_requester_on_resolve', description: 'When a ticket is resolved, tell the requester', condition: 'on_resolve', action: 'notify_requester', template: 'Resolved' },
  { key: 'open_inactive_on_correspond', description: 'On a public reply to an inactive ticket, reopen it', condition: 'on_correspond', action: 'open_inactive', template: null },
];

export interface SeedResult { seeded: boolean; adminEmail?: string; generatedPassword?: string }

/** First start on an empty database (SPEC B2): an admin, the General queue, default templates and scrips. */
export async function seedIfEmpty(db: Db, opts: { adminEmail: string; adminPassword?: string }): Promise<SeedResult> {
  const { n } = db.select({ n: sql<number>`count(*)` }).from(users).get()!;
  if (n > 0) return { seeded: false };
  const generatedPassword = opts.adminPassword ? undefined : generatePassword();
  const password_hash = await hashPassword(opts.adminPassword ?? generatedPassword!);
  const now = nowIso();
  const stamp = { created_at: now, updated_at: now };
  const email = normalizeEmail(opts.adminEmail);
  db.transaction((tx) => {
    // Re-check inside the transaction: two processes starting at once must not both seed.
    if (tx.select({ n: sql<number>`count(*)` }).from(users).get()!.n > 0) return;
    tx.insert(users).values({ email, name: 'Administrator', role: 'admin', password_hash, ...stamp }).run();
    tx.insert(queues).values({ name: 'General', description: 'Default queue', ...stamp }).run();
    const ids = new Map<string, number>();
    for (const t of TEMPLATES) ids.set(t.name, tx.insert(templates).values({ ...t, ...stamp }).returning().get().id);
    SCRIPS.forEach((s, i) => tx.insert(scrips).values({
      key: s.key, description: s.description, condition: s.condition, action: s.action,
      template_id: s.template ? ids.get(s.template)! : null, sort_order: (i + 1) * 10, ...stamp,
    }).run());
  });
  return { seeded: true, adminEmail: email, generatedPassword };
}
