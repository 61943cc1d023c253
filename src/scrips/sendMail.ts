import { eq, sql } from 'drizzle-orm';
import { cachedConfig } from '../db/configCache.js';
import { type Conn, prepared } from '../db/port.js';
import { type scrips, templates } from '../db/tables.js';
import { nowMs } from '../domain/clock.js';
import { isResolving, lifecycleOf } from '../domain/lifecycles/categories.js';
import { queueRowOf, type Scope, type ScopeNeeds, withUrl } from './context.js';
import { csatUrl } from './csatLinks.js';
import type { ScripEffects, ScripEvent } from './kinds.js';
import { type EmailInput, enqueueEmails, type Mailbox } from './outbox.js';
import { isStaffRole, type Recipient, type TicketPeople } from './people.js';
import { portalUrl } from './portalLinks.js';
import { RENDER_MAX_BYTES, RenderTooLarge, renderTemplate, templateNeeds } from './templates.js';

// A scrip action's mail (SPEC C2/C3): whom one action addresses after the actor, disabled users,
// preferences, our own addresses and the relay gate (SPEC D0) are taken out, and one outbox row
// per copy of its template. The engine (engine.ts) hands each action its context.

export type ScripRow = typeof scrips.$inferSelect;

export interface ActionContext {
  conn: Conn;
  event: ScripEvent;
  scrip: ScripRow;
  config: Record<string, unknown>;
  effects: ScripEffects;
  /** The template scope with at least the parts `needs` names (loaded once per change, shared by its scrips). */
  scope: (needs: ScopeNeeds) => Promise<Scope>;
  people: () => Promise<TicketPeople>;
  /** Users by id (usersByIds); the first call reads everyone on the ticket at once (decision 067). */
  users: (ids: number[]) => Promise<Recipient[]>;
  /** Read once per transaction, whichever scrips mail: our own addresses, and the files the transaction carries. */
  ours: () => Promise<Set<string>>;
  attachmentIds: () => Promise<number[]>;
  /**
   * Who this transaction already mailed: a person gets one copy of what someone wrote (a reply,
   * a note, a new ticket), whichever scrips address them, and other notices once per template.
   */
  mailed: Set<string>;
  /** Queues a write (an outbox row); the engine performs it only if the whole action succeeds. */
  write: (w: () => Promise<unknown>) => void;
  /** The actor's role (undefined: nobody, or a user since deleted). */
  actorRole: () => Promise<string | undefined>;
  /** Whether a staff member has written publicly on the ticket (read once per transaction). */
  staffSpoke: () => Promise<boolean>;
  /** Customers this action held back (SPEC D0 relay gate), reported on its result. */
  withheld: string[];
}

/** Which staff preference (SPEC C2 settings page) a staff mail about this event answers to. */
function preferenceFor(e: ScripEvent): 'notify_new_tickets' | 'notify_replies' | 'notify_notes' | null {
  if (e.type === 'Comment') return e.outsideSender ? 'notify_replies' : 'notify_notes';
  return e.type === 'Create' ? 'notify_new_tickets' : e.type === 'Correspond' ? 'notify_replies' : null;
}

/** Text a person wrote (a new ticket, a reply, a note), as opposed to a change of a field or machine mail. */
const isHumanText = (e: ScripEvent) =>
  ['Create', 'Correspond', 'Comment'].includes(e.type) && e.actorId !== null && !e.autoSubmitted;

const mailbox = (r: { name: string; email: string }): Mailbox => ({ name: r.name, address: r.email });
const displayName = (p: { name: string; email: string } | null | undefined) =>
  p ? p.name.trim() || p.email.split('@')[0] : '';

export interface MailPlan {
  audience: 'customer' | 'staff';
  /** The people this action addresses, before the actor, disabled users and preferences are taken out. */
  recipients: Recipient[];
  /** Header lists; default: each copy is addressed To its own recipient. */
  to?: Recipient[];
  cc?: Recipient[];
  autoreply?: boolean;
  /** Let the actor have it too (an autoreply confirms receipt to whoever wrote in). */
  includeActor?: boolean;
}

/** Queues one copy per recipient of the scrip's template (SPEC C2/C3), and returns how many. */
export async function sendMail(ctx: ActionContext, plan: MailPlan): Promise<number> {
  const { event } = ctx;
  const pref = plan.audience === 'staff' ? preferenceFor(event) : null;
  const already = new Set(event.alreadySent ?? []);
  const human = isHumanText(event) && !plan.autoreply;
  const key = (r: Recipient) => `${human ? 'text' : ctx.scrip.template_id}|${r.email}`;
  let wanted = plan.recipients.filter(
    (r) =>
      !r.disabled &&
      (plan.includeActor || r.id !== event.actorId) &&
      !ctx.mailed.has(key(r)) &&
      !already.has(r.email) &&
      !(pref && isStaffRole(r.role) && !r[pref]),
  );
  // SPEC D0, no relay before staff speak: what a customer wrote (and what it set off) goes to the
  // ticket's other customers only once a staff member has replied publicly on the ticket.
  if (
    plan.audience === 'customer' &&
    event.actorId !== null &&
    wanted.some((r) => r.id !== event.actorId) &&
    !isStaffRole(await ctx.actorRole()) &&
    !(await ctx.staffSpoke())
  ) {
    ctx.withheld.push(...wanted.filter((r) => r.id !== event.actorId).map((r) => r.email));
    wanted = wanted.filter((r) => r.id === event.actorId);
  }
  if (wanted.length === 0) return 0;
  // Never one of our own addresses (a watcher added before the address became a queue alias or MAIL_ADDRESSES).
  const ours = await ctx.ours();
  const to = wanted.filter((r) => !ours.has(r.email));
  if (to.length === 0) return 0;
  if (ctx.scrip.template_id === null) throw new Error('This action sends e-mail but the scrip has no template');
  const id = ctx.scrip.template_id;
  // Kept by the process for the configuration's version (decision 067): scrips that share a template read it once at most.
  const tpl = await cachedConfig(ctx.conn, `template:${id}`, async () => await templateById(ctx.conn).get({ id }));
  if (!tpl) throw new Error(`Template ${ctx.scrip.template_id} no longer exists`);
  const subjectNeeds = templateNeeds(tpl.subject);
  const bodyNeeds = templateNeeds(tpl.body);
  const scope = await ctx.scope({
    ticket:
      subjectNeeds.ticket === 'all' || bodyNeeds.ticket === 'all'
        ? 'all'
        : new Set([...subjectNeeds.ticket, ...bodyNeeds.ticket]),
    creator: human || subjectNeeds.creator || bodyNeeds.creator, // a person's text is sent in their name
  });
  const queue = scope.ticket.queue;
  const address = queue.mail_alias ?? event.notify.mailFrom;
  const from: Mailbox = {
    name: human ? `${displayName(scope.transaction?.creator)} (${queue.name})` : queue.name,
    address,
  };
  const autoSubmitted = plan.autoreply
    ? 'auto-replied'
    : human && plan.audience === 'customer'
      ? null
      : 'auto-generated';
  const attachmentIds = human ? await ctx.attachmentIds() : [];
  const headerTo = plan.to?.filter((r) => !r.disabled).map(mailbox);
  const headerCc = plan.cc?.filter((r) => !r.disabled).map(mailbox) ?? [];
  const staffUrl = `${event.notify.publicUrl}/tickets/${event.ticketId}`;
  const rating = await csatRequesters(ctx, plan, tpl);
  // Staff copies differ only where the template names its `recipient`: otherwise rendered once.
  const personal = plan.audience === 'customer' || /\brecipient\b/.test(tpl.subject) || /\brecipient\b/.test(tpl.body);
  let shared: { subject: string; body: string } | undefined;
  // SPEC D0: a part rendering larger than 1 MiB fails the scrip (no copy is queued), and says so.
  const part = (name: 'subject' | 'body', own: object) => {
    try {
      return renderTemplate(tpl[name], own);
    } catch (e) {
      if (e instanceof RenderTooLarge)
        throw new Error(
          `The ${name} of template "${tpl.name}" renders larger than 1 MiB (${RENDER_MAX_BYTES} bytes); nothing was sent`,
        );
      throw e;
    }
  };
  const render = (r: Recipient) => {
    if (!personal && shared) return shared;
    // Customer mail never links to a page its reader cannot open: its ticket.url is their portal link.
    const url =
      plan.audience === 'customer'
        ? portalUrl(event.notify, event.ticketId, r.id, r.portal_epoch, nowMs(ctx.conn))
        : staffUrl;
    const rate = rating.has(r.id)
      ? csatUrl(event.notify, event.ticketId, event.transactionId, r.id, nowMs(ctx.conn))
      : '';
    const own = {
      ...scope,
      ticket: withUrl(scope.ticket, url, rate),
      recipient: { id: r.id, name: r.name, email: r.email },
    };
    return (shared = { subject: part('subject', own).replace(/\s+/g, ' ').trim(), body: part('body', own) });
  };
  const copies: EmailInput[] = to.map((r) => ({
    ticketId: event.ticketId,
    transactionId: event.transactionId,
    scripId: ctx.scrip.id,
    recipient: r.email,
    to: headerTo?.length ? headerTo : [mailbox(r)],
    cc: headerCc,
    from,
    replyTo: { name: queue.name, address },
    ...render(r),
    audience: plan.audience,
    autoSubmitted,
    attachmentIds,
  }));
  ctx.write(() => enqueueEmails(ctx.conn, copies, event.notify.mailFrom));
  for (const r of to) ctx.mailed.add(key(r));
  return to.length;
}

/**
 * SPEC D4 (decision 082): the requesters whose copy carries a rating link: customer mail about a
 * resolve (this very Status entry), in a queue that asks for ratings, from a template that names
 * `csat_url`. Each link is bound to its requester and this resolve.
 */
async function csatRequesters(
  ctx: ActionContext,
  plan: MailPlan,
  tpl: { subject: string; body: string },
): Promise<Set<number>> {
  const e = ctx.event;
  if (plan.audience !== 'customer' || e.type !== 'Status' || e.newValue === null) return new Set();
  if (!/\bcsat_url\b/.test(tpl.body) && !/\bcsat_url\b/.test(tpl.subject)) return new Set();
  const people = await ctx.people();
  if (!(await queueRowOf(ctx.conn, people.queue))?.csat_enabled) return new Set();
  if (!isResolving(await lifecycleOf(ctx.conn, people.queue), e.oldValue ?? '', e.newValue)) return new Set();
  return new Set(people.requesters);
}

const templateById = prepared((db) =>
  db
    .select()
    .from(templates)
    .where(eq(templates.id, sql.placeholder('id'))),
);
