import { and, asc, eq, isNull, or, sql } from 'drizzle-orm';
import { type Conn, errorMessage, inUnitOfWork, prepared } from '../db/port.js';
import { cachedConfig } from '../db/configCache.js';
import { attachments, scrips, templates, tickets, type transactions } from '../db/tables.js';
import { nowMs } from '../domain/clock.js';
import {
  categoryIn,
  isResolving,
  type Lifecycle,
  lifecycleOf,
  namesIn,
  replyStatus,
} from '../domain/lifecycles/categories.js';
import type { NotifySettings } from './config.js';
import { ALL_NEEDS, queueRowOf, type Scope, ScopeLoader, type ScopeNeeds, withUrl } from './context.js';
import { enqueueEmails, enqueueWebhook, type EmailInput, type Mailbox } from './outbox.js';
import {
  isStaffRole,
  ourAddresses,
  type Recipient,
  staffSpokePublicly,
  teamMemberIds,
  ticketPeople,
  type TicketPeople,
  userById,
  usersByIds,
} from './people.js';
import { portalUrl } from './portalLinks.js';
import { csatUrl } from './csatLinks.js';
import { RENDER_MAX_BYTES, renderTemplate, RenderTooLarge, templateNeeds } from './templates.js';

/** The outcome of one scrip whose condition matched a transaction (SPEC B6). */
export interface ScripResult {
  scrip_id: number;
  key: string;
  action: string;
  ok: boolean;
  notifications: number;
  error?: string;
  /**
   * SPEC D0: customers this action did not mail, and why (what a customer wrote reaches the
   * ticket's other customers only after a staff member has replied publicly on it).
   */
  withheld?: { recipients: string[]; reason: string };
}

/** What the engine sees of a freshly written transaction. */
export interface ScripEvent {
  ticketId: number;
  transactionId: number;
  type: string;
  actorId: number | null;
  field: string | null;
  oldValue: string | null;
  newValue: string | null;
  /** SPEC D0: a Comment that is mail from someone not on the ticket: staff hear of it as of a customer's reply. */
  outsideSender?: boolean;
  /** Set for mail that announced itself as automatic (Auto-Submitted, Precedence: bulk…): no autoreply. */
  autoSubmitted?: boolean;
  /** For inbound mail: the addresses it was sent to (To, Cc). They have it already, so it is not relayed to them. */
  alreadySent?: string[];
  /** The settings of the app the change came through: its URL, sender, portal key, own addresses. */
  notify: NotifySettings;
  /** The ticket's queue, when the caller knows it (its row): the scrips then need no read to find it. */
  queueId?: number;
  /** The actor's role, when the caller knows it (the actor is the signed-in user): not read again. */
  actorRole?: string;
  /** The transaction was written with no file: there are none to read. */
  noFiles?: boolean;
  /** The transaction's row as written (the template scope reads it no more). */
  transactionRow?: typeof transactions.$inferSelect;
}

/** A change a scrip asks for; the domain applies it as a transaction that runs no scrips. */
export interface ScripEffects {
  setStatus?: string;
  /** SPEC D3: tags to add (add_tag), each an AddTag entry when the ticket has it not yet. */
  addTags?: string[];
}

export const CONDITIONS = [
  'on_create',
  'on_transaction',
  'on_correspond',
  'on_customer_correspond',
  'on_comment',
  'on_status_change',
  'on_resolve',
  'on_reopen',
  'on_owner_change',
  'on_team_change',
  'on_queue_change',
  'on_priority_change',
  'on_staff_take_up',
  'on_sla_warning',
  'on_sla_breach',
  // SPEC D2: a ticket stayed in one of `config.statuses` for `config.hours` (an Idle entry of this scrip).
  'on_idle',
  'on_unsnooze',
  // SPEC D3: a tag was added (an AddTag entry); `config.if_tag` narrows it to one tag.
  'on_tag_added',
  // SPEC D4: a requester rated a resolve (a Rating entry); `config.max` (bad, the default, or okay) catches ratings at or below it.
  'on_rating',
] as const;
export type Condition = (typeof CONDITIONS)[number];

export const ACTIONS = [
  'autoreply_requester',
  'notify_requester',
  'notify_requesters_and_cc',
  'notify_owner',
  'notify_owner_and_admin_cc',
  'notify_staff_watchers',
  'notify_owner_or_staff_watchers',
  'notify_team',
  'notify_webhook',
  'open_inactive',
  'open_new',
  'set_status',
  // SPEC D2: mails the requesters the template `config.template` (default "Closing") and resolves the ticket.
  'close_idle',
  // SPEC D3: adds the tag `config.tag` (nothing when the ticket has it).
  'add_tag',
] as const;
export type Action = (typeof ACTIONS)[number];
/** Actions that send e-mail and therefore need a template (close_idle names its own: `config.template`). */
export const MAIL_ACTIONS: readonly Action[] = ACTIONS.filter(
  (a) =>
    a !== 'notify_webhook' &&
    a !== 'open_inactive' &&
    a !== 'open_new' &&
    a !== 'set_status' &&
    a !== 'close_idle' &&
    a !== 'add_tag',
);
/** Decision 050: a deleted ticket is hidden from its customers; their mail does not bring it back. */
const HIDDEN = 'deleted';
/** The template close_idle mails when its config names none. */
export const CLOSING_TEMPLATE = 'Closing';

/** Not done (SPEC D3: an initial, active or waiting status of the ticket's lifecycle). */
const isActive = (l: Lifecycle, s: string | null) => {
  const c = s === null ? undefined : categoryIn(l, s);
  return c !== undefined && c !== 'inactive';
};

/** A condition's test: the event, the actor's role (read when asked), the scrip (its id and parsed config), and the ticket's lifecycle (read when asked). */
type ConditionTest = (
  e: ScripEvent,
  actorRole: () => Promise<string | undefined>,
  scrip: { id: number; config: Record<string, unknown> },
  lifecycle: () => Promise<Lifecycle>,
) => boolean | Promise<boolean>;

const CONDITION_TESTS: Record<Condition, ConditionTest> = {
  on_create: (e) => e.type === 'Create',
  on_transaction: () => true,
  on_correspond: (e) => e.type === 'Correspond',
  // A reply from a requester or Cc (anyone not staff), by mail or the portal; and mail from an
  // outside sender (SPEC D0), which staff hear of as they would of a customer's reply.
  on_customer_correspond: async (e, role) =>
    (e.type === 'Correspond' && e.actorId !== null && !isStaffRole(await role())) ||
    (e.type === 'Comment' && e.outsideSender === true),
  // A note staff wrote: not an outside sender's mail, though it is kept as a Comment too.
  on_comment: (e) => e.type === 'Comment' && !e.outsideSender,
  on_status_change: (e) => e.type === 'Status',
  on_resolve: async (e, _r, _s, lc) =>
    e.type === 'Status' && e.newValue !== null && isResolving(await lc(), e.oldValue ?? '', e.newValue),
  on_reopen: async (e, _r, _s, lc) =>
    e.type === 'Status' && !isActive(await lc(), e.oldValue) && isActive(await lc(), e.newValue),
  on_owner_change: (e) => e.type === 'SetOwner',
  on_team_change: (e) => e.type === 'SetTeam',
  on_queue_change: (e) => e.type === 'SetQueue',
  on_priority_change: (e) => e.type === 'SetPriority',
  // SPEC D6: staff take a ticket up: a staff member's public reply (web, API or mail), or a Take
  // (the owner set to the one who set it). Not a requester's reply, not an internal note.
  on_staff_take_up: async (e, role) =>
    e.actorId !== null &&
    (e.type === 'Correspond' || (e.type === 'SetOwner' && e.newValue === String(e.actorId))) &&
    isStaffRole(await role()),
  // SPEC D2: a clock's warning or breach (an `SLA` entry by its timer); `config.clock` narrows it to one clock.
  on_sla_warning: (e, _role, scrip) => slaEntry(e, 'warning', scrip.config),
  on_sla_breach: (e, _role, scrip) => slaEntry(e, 'breached', scrip.config),
  // SPEC D2: the Idle entry a timer wrote for this very scrip (other idle scrips have their own).
  on_idle: (e, _role, scrip) => e.type === 'Idle' && e.newValue === String(scrip.id),
  // SPEC D2: a snoozed ticket woke (its time came, its customer wrote, or staff woke it).
  on_unsnooze: (e) => e.type === 'Unsnooze',
  // SPEC D3: the stored if_tag is normalized (decision 074), as the entry's tag is.
  on_tag_added: (e, _role, scrip) =>
    e.type === 'AddTag' && (scrip.config.if_tag === undefined || scrip.config.if_tag === e.newValue),
  on_rating: (e, _role, scrip) =>
    e.type === 'Rating' &&
    ratingRank(e.newValue) >= ratingRank(typeof scrip.config.max === 'string' ? scrip.config.max : 'bad'),
};

/** SPEC D4: ratings from best to worst; a rating "at or below" `max` ranks at least as high. */
export const RATING_ORDER = ['good', 'okay', 'bad'] as const;
const ratingRank = (r: string | null) => RATING_ORDER.indexOf(r as (typeof RATING_ORDER)[number]);

const slaEntry = (e: ScripEvent, step: string, config: Record<string, unknown>) =>
  e.type === 'SLA' && e.newValue === step && (config.clock === undefined || config.clock === e.field);

type ScripRow = typeof scrips.$inferSelect;

interface ActionContext {
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

/** Why a customer's text was not mailed on to the other customers (SPEC D0). */
export const RELAY_HELD =
  'no staff member has replied publicly on this ticket yet: what a customer writes reaches only staff until then';

/** Text a person wrote (a new ticket, a reply, a note), as opposed to a change of a field or machine mail. */
const isHumanText = (e: ScripEvent) =>
  ['Create', 'Correspond', 'Comment'].includes(e.type) && e.actorId !== null && !e.autoSubmitted;

const attachmentIdsOf = prepared((db) =>
  db
    .select({ id: attachments.id })
    .from(attachments)
    .where(eq(attachments.transaction_id, sql.placeholder('id')))
    .orderBy(asc(attachments.id)),
);

const mailbox = (r: { name: string; email: string }): Mailbox => ({ name: r.name, address: r.email });
const displayName = (p: { name: string; email: string } | null | undefined) =>
  p ? p.name.trim() || p.email.split('@')[0] : '';

interface MailPlan {
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
async function sendMail(ctx: ActionContext, plan: MailPlan): Promise<number> {
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
const templateByName = prepared((db) =>
  db
    .select({ id: templates.id })
    .from(templates)
    .where(eq(templates.name, sql.placeholder('name'))),
);
/** The enabled scrips of a ticket (global ones and its queue's), found through the ticket in one statement. */
const scripsFor = prepared((db) =>
  db
    .select({ scrip: scrips })
    .from(tickets)
    .innerJoin(
      scrips,
      and(eq(scrips.enabled, true), or(isNull(scrips.queue_id), eq(scrips.queue_id, tickets.queue_id))),
    )
    .where(eq(tickets.id, sql.placeholder('ticket')))
    .orderBy(asc(scrips.sort_order), asc(scrips.id)),
);
/** Every enabled scrip, in the order they run: kept by the process for the configuration's version (decision 067). */
const enabledScrips = prepared((db) =>
  db.select().from(scrips).where(eq(scrips.enabled, true)).orderBy(asc(scrips.sort_order), asc(scrips.id)),
);

/**
 * The enabled scrips of a ticket in `queue` (global ones and the queue's): inside a unit of work
 * from the process's cache; outside one (a preview), through the ticket as before.
 */
async function scripsOf(conn: Conn, ticketId: number, queue: () => Promise<number | undefined>): Promise<ScripRow[]> {
  if (!inUnitOfWork(conn)) return (await scripsFor(conn).all({ ticket: ticketId })).map((r) => r.scrip);
  const all = await cachedConfig(conn, 'scrips', async () => await enabledScrips(conn).all());
  if (all.length === 0) return [];
  const q = await queue();
  return q === undefined ? [] : all.filter((s) => s.queue_id === null || s.queue_id === q);
}

/** Owner, ticket and queue AdminCc, and the members of the ticket's team: the staff watching a ticket. */
async function staffWatchers(ctx: ActionContext): Promise<Recipient[]> {
  const p = await ctx.people();
  return ctx.users([...(p.owner === null ? [] : [p.owner]), ...p.adminCc, ...(await teamMemberIds(ctx.conn, p.team))]);
}
const ownerAndAdminCc = async (ctx: ActionContext) => {
  const p = await ctx.people();
  return ctx.users([...(p.owner === null ? [] : [p.owner]), ...p.adminCc]);
};
const requestersOf = async (ctx: ActionContext) => ctx.users((await ctx.people()).requesters);

const ACTION_RUNNERS: Record<Action, (ctx: ActionContext) => Promise<number>> = {
  autoreply_requester: async (ctx) => {
    if (ctx.event.autoSubmitted) return 0; // never answer a machine: no mail loops
    const requesters = await requestersOf(ctx);
    // A staff member who opens a ticket for themselves needs no receipt; a customer who wrote in does.
    const actor = requesters.find((r) => r.id === ctx.event.actorId);
    const recipients = actor && isStaffRole(actor.role) ? requesters.filter((r) => r !== actor) : requesters;
    return sendMail(ctx, { audience: 'customer', recipients, to: requesters, autoreply: true, includeActor: true });
  },
  notify_requester: async (ctx) => {
    const requesters = await requestersOf(ctx);
    return sendMail(ctx, { audience: 'customer', recipients: requesters, to: requesters });
  },
  notify_requesters_and_cc: async (ctx) => {
    const requesters = await requestersOf(ctx);
    const cc = await ctx.users((await ctx.people()).cc);
    return sendMail(ctx, { audience: 'customer', recipients: [...requesters, ...cc], to: requesters, cc });
  },
  notify_owner: async (ctx) =>
    sendMail(ctx, {
      audience: 'staff',
      recipients: await ctx.users([(await ctx.people()).owner].filter((x): x is number => x !== null)),
    }),
  notify_owner_and_admin_cc: async (ctx) =>
    sendMail(ctx, { audience: 'staff', recipients: await ownerAndAdminCc(ctx) }),
  notify_staff_watchers: async (ctx) => sendMail(ctx, { audience: 'staff', recipients: await staffWatchers(ctx) }),
  notify_owner_or_staff_watchers: async (ctx) =>
    sendMail(ctx, {
      audience: 'staff',
      recipients:
        (await ctx.people()).owner === null ? await staffWatchers(ctx) : await ctx.users([(await ctx.people()).owner!]),
    }),
  notify_team: async (ctx) =>
    sendMail(ctx, {
      audience: 'staff',
      recipients: await ctx.users(await teamMemberIds(ctx.conn, (await ctx.people()).team)),
    }),
  notify_webhook: async (ctx) => {
    const url = ctx.config.url;
    if (typeof url !== 'string' || !/^https?:\/\//.test(url)) throw new Error('config.url must be an http(s) URL');
    const scope = await ctx.scope(ALL_NEEDS);
    ctx.write(() =>
      enqueueWebhook(ctx.conn, {
        ticketId: ctx.event.ticketId,
        transactionId: ctx.event.transactionId,
        scripId: ctx.scrip.id,
        url,
        payload: {
          event: ctx.scrip.condition,
          scrip: scope.scrip,
          ticket: scope.ticket,
          transaction: scope.transaction,
        },
      }),
    );
    return 1;
  },
  open_inactive: async (ctx) => {
    if (ctx.event.autoSubmitted) return 0; // an out-of-office reply does not reopen a resolved ticket
    const { status, ticket } = await ctx.people();
    // A snoozed ticket wakes by its own rule (SPEC D2: unsnooze_on_reply), never by this one.
    if (ticket.snoozed_until !== null) return 0;
    if (ctx.event.type !== 'Correspond') return 0;
    // SPEC D3: a waiting or inactive ticket (not a deleted one, decision 050) moves to the
    // lifecycle's on_customer_reply, else its first active status.
    const lc = await lifecycleOf(ctx.conn, ticket.queue_id);
    const category = categoryIn(lc, status);
    const to = replyStatus(lc);
    if ((category === 'waiting' || category === 'inactive') && status !== HIDDEN && to !== undefined && to !== status)
      ctx.effects.setStatus = to;
    return 0;
  },
  // SPEC D6 (as RT): a ticket still in the initial status moves to the first active one, new → open.
  open_new: async (ctx) => {
    const { status, queue } = await ctx.people();
    const lc = await lifecycleOf(ctx.conn, queue);
    const to = namesIn(lc, 'active')[0];
    if (categoryIn(lc, status) === 'initial' && to !== undefined) ctx.effects.setStatus = to;
    return 0;
  },
  set_status: async (ctx) => {
    const status = ctx.config.status;
    const lc = await lifecycleOf(ctx.conn, (await ctx.people()).queue);
    const names = lc.statuses.map((x) => x.name);
    if (typeof status !== 'string' || !names.includes(status)) {
      throw new Error(`config.status must be one of ${names.join(', ')} (the ticket's lifecycle)`);
    }
    ctx.effects.setStatus = status;
    return 0;
  },
  // SPEC D3: the tag is added after the scrips of this entry ran, as an entry of its own (recordTransactions).
  add_tag: async (ctx) => {
    // Checked and normalized when the scrip was saved (src/domain/scrips.ts); the domain checks it again before writing.
    const tag = ctx.config.tag;
    if (typeof tag !== 'string' || tag === '') throw new Error('config.tag must name the tag to add');
    (ctx.effects.addTags ??= []).push(tag);
    return 0;
  },
  // SPEC D2 auto-close: the closing mail to the requesters, then the ticket resolved by a scrip,
  // which runs no scrips (so the resolve sends them nothing more).
  close_idle: async (ctx) => {
    const name = typeof ctx.config.template === 'string' ? ctx.config.template : CLOSING_TEMPLATE;
    const id = ctx.scrip.template_id ?? (await templateByName(ctx.conn).get({ name }))?.id;
    if (id === undefined) throw new Error(`There is no template "${name}"`);
    const requesters = await requestersOf(ctx);
    const sent = await sendMail(
      { ...ctx, scrip: { ...ctx.scrip, template_id: id } },
      { audience: 'customer', recipients: requesters, to: requesters },
    );
    // SPEC D3: the lifecycle's first inactive status (RT's default: resolved).
    const { status, queue } = await ctx.people();
    const lc = await lifecycleOf(ctx.conn, queue);
    const done = namesIn(lc, 'inactive')[0];
    if (done !== undefined && categoryIn(lc, status) !== 'inactive') ctx.effects.setStatus = done;
    return sent;
  },
};

/**
 * Runs the enabled scrips (global, and those of the ticket's queue) whose condition matches
 * the transaction, in `sort_order`, inside the caller's SQL transaction. An action only reads
 * while it runs and queues its writes (outbox rows), which the engine performs once the action
 * has returned: one that throws has written nothing, is reported `ok: false`, and never undoes
 * the ticket change or the other scrips' notifications. (It used to run in a savepoint; a
 * savepoint made FTS5 flush its pending index, a tenth of a millisecond per change.)
 */
export async function runScrips(
  conn: Conn,
  event: ScripEvent,
): Promise<{
  results: ScripResult[];
  effects: ScripEffects;
  actorRole?: string | null;
  /** The ticket's row as the scrips read it (with its people), when they did. */
  ticket?: TicketPeople['ticket'];
}> {
  const effects: ScripEffects = {};
  let people: TicketPeople | undefined;
  const loadPeople = async () => (people ??= (await ticketPeople(conn, event.ticketId))!);
  // The ticket's queue: the caller's, else the one its people are read with (most scrips read them anyway).
  const candidates = await scripsOf(conn, event.ticketId, async () => event.queueId ?? (await loadPeople())?.queue);
  let ours: Set<string> | undefined;
  let files: number[] | undefined;
  // The caller's word for the actor's role (the signed-in user), else read when a scrip asks.
  let actorRole: string | undefined | null = event.actorRole ?? null;
  const roleOfActor = async () =>
    actorRole === null ? (actorRole = (await userById(conn, event.actorId))?.role) : actorRole;
  let spoke: boolean | undefined;
  // The first scrip that addresses people reads everyone on the ticket (owner, requesters, Cc,
  // AdminCc, the team) in one statement: the next scrips' people are read already (decision 067).
  let everyone = false;
  const users = async (ids: number[]) => {
    if (ids.length === 0) return [];
    if (!everyone && inUnitOfWork(conn)) {
      everyone = true;
      const p = await loadPeople();
      if (p) {
        const team = await teamMemberIds(conn, p.team);
        await usersByIds(conn, [
          ...ids,
          ...(p.owner === null ? [] : [p.owner]),
          ...p.requesters,
          ...p.cc,
          ...p.adminCc,
          ...team,
        ]);
      }
    }
    return usersByIds(conn, ids);
  };
  const loader = new ScopeLoader(conn, event.ticketId, event.transactionId, event.notify.publicUrl, {
    transaction: event.transactionRow,
    ticket: async () => (await loadPeople())?.ticket,
  });
  let lc: Promise<Lifecycle> | undefined;
  const lifecycle = () => (lc ??= (async () => lifecycleOf(conn, event.queueId ?? (await loadPeople())?.queue ?? 0))());
  const mailed = new Set<string>();
  const results: ScripResult[] = [];
  for (const scrip of candidates) {
    const test = CONDITION_TESTS[scrip.condition as Condition];
    const config = JSON.parse(scrip.config) as Record<string, unknown>;
    if (!test || !(await test(event, roleOfActor, { id: scrip.id, config }, lifecycle))) continue;
    const result: ScripResult = {
      scrip_id: scrip.id,
      key: scrip.key,
      action: scrip.action,
      ok: true,
      notifications: 0,
    };
    let writes: (() => Promise<unknown>)[] = [];
    try {
      const run = ACTION_RUNNERS[scrip.action as Action];
      if (!run) throw new Error(`Unknown action ${scrip.action}`);
      const local: ScripEffects = {};
      const localMailed = new Set(mailed);
      const withheld: string[] = [];
      const notifications = await run({
        conn,
        event,
        scrip,
        effects: local,
        mailed: localMailed,
        people: loadPeople,
        users,
        ours: async () => (ours ??= await ourAddresses(conn, event.notify.ownAddresses)),
        attachmentIds: async () =>
          (files ??= event.noFiles
            ? []
            : (await attachmentIdsOf(conn).all({ id: event.transactionId })).map((a) => a.id)),
        config,
        write: (w) => writes.push(w),
        actorRole: roleOfActor,
        staffSpoke: async () => (spoke ??= await staffSpokePublicly(conn, event.ticketId)),
        withheld,
        scope: async (needs) => ({
          ...(await loader.load(needs)),
          scrip: { id: scrip.id, key: scrip.key, description: scrip.description },
        }),
      });
      result.notifications = notifications;
      if (withheld.length > 0) result.withheld = { recipients: [...new Set(withheld)], reason: RELAY_HELD };
      if (local.setStatus !== undefined) effects.setStatus = local.setStatus;
      if (local.addTags) (effects.addTags ??= []).push(...local.addTags);
      for (const k of localMailed) mailed.add(k);
    } catch (e) {
      result.ok = false;
      result.notifications = 0;
      result.error = errorMessage(e);
      writes = [];
    }
    // Outside the try: a failing write is a database failure and fails the whole change.
    for (const w of writes) await w();
    results.push(result);
  }
  // The actor's role, when a condition or action read it (null: no such user): the caller need not read it again.
  const ticket = (people as TicketPeople | undefined)?.ticket;
  return actorRole === null ? { results, effects, ticket } : { results, effects, actorRole: actorRole ?? null, ticket };
}
