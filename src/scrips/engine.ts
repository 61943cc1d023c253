import { and, asc, eq, inArray, isNull, or, sql } from 'drizzle-orm';
import { type Conn, prepared } from '../db/client.js';
import { scrips, teamMembers, templates, tickets, users } from '../db/schema.js';
import { ACTIVE_STATUSES, STATUSES } from '../lifecycle.js';
import { notifySettings } from './config.js';
import { type Scope, ticketScope, transactionScope } from './context.js';
import { enqueueEmail, enqueueWebhook } from './outbox.js';
import { renderTemplate } from './templates.js';

/** The outcome of one scrip whose condition matched a transaction (SPEC B6). */
export interface ScripResult {
  scrip_id: number;
  key: string;
  action: string;
  ok: boolean;
  notifications: number;
  error?: string;
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
  /** Set for mail that announced itself as automatic (Auto-Submitted, Precedence: bulk…): no autoreply. */
  autoSubmitted?: boolean;
}

/** A change a scrip asks for; the domain applies it as a transaction that runs no scrips. */
export interface ScripEffects { setStatus?: string }

export const CONDITIONS = [
  'on_create', 'on_transaction', 'on_correspond', 'on_comment', 'on_status_change', 'on_resolve', 'on_reopen',
  'on_owner_change', 'on_team_change', 'on_queue_change', 'on_priority_change',
] as const;
export type Condition = (typeof CONDITIONS)[number];

export const ACTIONS = [
  'autoreply_requester', 'notify_requester', 'notify_owner', 'notify_team', 'notify_webhook', 'open_inactive', 'set_status',
] as const;
export type Action = (typeof ACTIONS)[number];
/** Actions that send e-mail and therefore need a template. */
export const MAIL_ACTIONS: readonly Action[] = ['autoreply_requester', 'notify_requester', 'notify_owner', 'notify_team'];

const isActive = (s: string | null) => s !== null && (ACTIVE_STATUSES as readonly string[]).includes(s);

const CONDITION_TESTS: Record<Condition, (e: ScripEvent) => boolean> = {
  on_create: (e) => e.type === 'Create',
  on_transaction: () => true,
  on_correspond: (e) => e.type === 'Correspond',
  on_comment: (e) => e.type === 'Comment',
  on_status_change: (e) => e.type === 'Status',
  on_resolve: (e) => e.type === 'Status' && e.newValue === 'resolved',
  on_reopen: (e) => e.type === 'Status' && !isActive(e.oldValue) && isActive(e.newValue),
  on_owner_change: (e) => e.type === 'SetOwner',
  on_team_change: (e) => e.type === 'SetTeam',
  on_queue_change: (e) => e.type === 'SetQueue',
  on_priority_change: (e) => e.type === 'SetPriority',
};

type ScripRow = typeof scrips.$inferSelect;

interface ActionContext {
  conn: Conn;
  event: ScripEvent;
  scrip: ScripRow;
  config: Record<string, unknown>;
  effects: ScripEffects;
  scope: () => Scope;
  /** `template|address` pairs this transaction already mailed: each address gets a notification once. */
  mailed: Set<string>;
  /** Queues a write (an outbox row); the engine performs it only if the whole action succeeds. */
  write: (w: () => void) => void;
}

interface Recipient { id: number; email: string }

const recipientCols = { id: users.id, email: users.email };
const activeUser = prepared((db) => db.select(recipientCols).from(users)
  .where(and(eq(users.id, sql.placeholder('id')), eq(users.disabled, false))).prepare());

/** Active users by id, minus the actor unless `includeActor`; each address once. */
function recipients(conn: Conn, ids: (number | null)[], actorId: number | null, includeActor: boolean): Recipient[] {
  const wanted = [...new Set(ids.filter((id): id is number => id !== null && (includeActor || id !== actorId)))];
  if (wanted.length === 0) return [];
  if (wanted.length === 1) {
    const one = activeUser(conn).get({ id: wanted[0] });
    return one ? [one] : [];
  }
  const rows = conn.select(recipientCols).from(users)
    .where(and(inArray(users.id, wanted), eq(users.disabled, false))).orderBy(asc(users.id)).all();
  const seen = new Set<string>();
  return rows.filter((r) => !seen.has(r.email) && seen.add(r.email));
}

const templateById = prepared((db) => db.select().from(templates).where(eq(templates.id, sql.placeholder('id'))).prepare());

function sendMail(ctx: ActionContext, recipients: Recipient[], autoSubmitted: 'auto-generated' | 'auto-replied'): number {
  if (recipients.length === 0) return 0;
  if (ctx.scrip.template_id === null) throw new Error('This action sends e-mail but the scrip has no template');
  const key = (r: Recipient) => `${ctx.scrip.template_id}|${r.email}`;
  const to = recipients.filter((r) => !ctx.mailed.has(key(r)));
  if (to.length === 0) return 0;
  const tpl = templateById(ctx.conn).get({ id: ctx.scrip.template_id });
  if (!tpl) throw new Error(`Template ${ctx.scrip.template_id} no longer exists`);
  const scope = ctx.scope();
  const subject = renderTemplate(tpl.subject, scope).replace(/\s+/g, ' ').trim();
  const body = renderTemplate(tpl.body, scope);
  const from = scope.ticket.queue.mail_alias ?? notifySettings().mailFrom;
  ctx.write(() => enqueueEmail(ctx.conn, {
    ticketId: ctx.event.ticketId, transactionId: ctx.event.transactionId, scripId: ctx.scrip.id, to: to.map((r) => r.email),
    from, subject, body, autoSubmitted,
  }));
  for (const r of to) ctx.mailed.add(key(r));
  return to.length;
}

const peopleOf = prepared((db) => db.select({
  queue: tickets.queue_id, owner: tickets.owner_id, requester: tickets.requester_id, team: tickets.team_id, status: tickets.status,
}).from(tickets).where(eq(tickets.id, sql.placeholder('id'))).prepare());
const ticketPeople = (conn: Conn, ticketId: number) => peopleOf(conn).get({ id: ticketId })!;
const membersOf = prepared((db) => db.select({ id: teamMembers.user_id }).from(teamMembers).where(eq(teamMembers.team_id, sql.placeholder('team'))).prepare());
const scripsFor = prepared((db) => db.select().from(scrips)
  .where(and(eq(scrips.enabled, true), or(isNull(scrips.queue_id), eq(scrips.queue_id, sql.placeholder('queue')))))
  .orderBy(asc(scrips.sort_order), asc(scrips.id)).prepare());

const ACTION_RUNNERS: Record<Action, (ctx: ActionContext) => number> = {
  autoreply_requester: (ctx) => {
    if (ctx.event.autoSubmitted) return 0; // never answer a machine: no mail loops
    return sendMail(ctx, recipients(ctx.conn, [ticketPeople(ctx.conn, ctx.event.ticketId).requester], ctx.event.actorId, true), 'auto-replied');
  },
  notify_requester: (ctx) =>
    sendMail(ctx, recipients(ctx.conn, [ticketPeople(ctx.conn, ctx.event.ticketId).requester], ctx.event.actorId, false), 'auto-generated'),
  notify_owner: (ctx) =>
    sendMail(ctx, recipients(ctx.conn, [ticketPeople(ctx.conn, ctx.event.ticketId).owner], ctx.event.actorId, false), 'auto-generated'),
  notify_team: (ctx) => {
    const { team } = ticketPeople(ctx.conn, ctx.event.ticketId);
    if (team === null) return 0;
    const members = membersOf(ctx.conn).all({ team });
    return sendMail(ctx, recipients(ctx.conn, members.map((m) => m.id), ctx.event.actorId, false), 'auto-generated');
  },
  notify_webhook: (ctx) => {
    const url = ctx.config.url;
    if (typeof url !== 'string' || !/^https?:\/\//.test(url)) throw new Error('config.url must be an http(s) URL');
    const scope = ctx.scope();
    ctx.write(() => enqueueWebhook(ctx.conn, {
      ticketId: ctx.event.ticketId, transactionId: ctx.event.transactionId, scripId: ctx.scrip.id, url,
      payload: { event: ctx.scrip.condition, scrip: scope.scrip, ticket: scope.ticket, transaction: scope.transaction },
    }));
    return 1;
  },
  open_inactive: (ctx) => {
    if (ctx.event.autoSubmitted) return 0; // an out-of-office reply does not reopen a resolved ticket
    const { status } = ticketPeople(ctx.conn, ctx.event.ticketId);
    if (ctx.event.type === 'Correspond' && ['resolved', 'rejected', 'stalled'].includes(status)) ctx.effects.setStatus = 'open';
    return 0;
  },
  set_status: (ctx) => {
    const status = ctx.config.status;
    if (typeof status !== 'string' || !(STATUSES as readonly string[]).includes(status)) {
      throw new Error(`config.status must be one of ${STATUSES.join(', ')}`);
    }
    ctx.effects.setStatus = status;
    return 0;
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
export function runScrips(conn: Conn, event: ScripEvent): { results: ScripResult[]; effects: ScripEffects } {
  const queueId = peopleOf(conn).get({ id: event.ticketId })?.queue;
  const effects: ScripEffects = {};
  if (queueId === undefined) return { results: [], effects };
  const candidates = scripsFor(conn).all({ queue: queueId });
  let scope: Scope | undefined;
  const mailed = new Set<string>();
  const results: ScripResult[] = [];
  for (const scrip of candidates) {
    const test = CONDITION_TESTS[scrip.condition as Condition];
    if (!test || !test(event)) continue;
    const result: ScripResult = { scrip_id: scrip.id, key: scrip.key, action: scrip.action, ok: true, notifications: 0 };
    let writes: (() => void)[] = [];
    try {
      const run = ACTION_RUNNERS[scrip.action as Action];
      if (!run) throw new Error(`Unknown action ${scrip.action}`);
      const local: ScripEffects = {};
      const localMailed = new Set(mailed);
      const notifications = run({
        conn, event, scrip, effects: local, mailed: localMailed, config: JSON.parse(scrip.config) as Record<string, unknown>,
        write: (w) => writes.push(w),
        scope: () => {
          scope ??= { ticket: ticketScope(conn, event.ticketId), transaction: transactionScope(conn, event.transactionId), scrip: null };
          return { ...scope, scrip: { id: scrip.id, key: scrip.key, description: scrip.description } };
        },
      });
      result.notifications = notifications;
      Object.assign(effects, local);
      for (const k of localMailed) mailed.add(k);
    } catch (e) {
      result.ok = false;
      result.notifications = 0;
      result.error = (e as Error).message || String(e);
      writes = [];
    }
    // Outside the try: a failing write is a database failure and fails the whole change.
    for (const w of writes) w();
    results.push(result);
  }
  return { results, effects };
}
