import { and, asc, eq, isNull, or, sql } from 'drizzle-orm';
import { type Conn, errorMessage, inUnitOfWork, prepared } from '../db/port.js';
import { cachedConfig } from '../db/configCache.js';
import { attachments, scrips, templates, tickets } from '../db/tables.js';
import { categoryIn, type Lifecycle, lifecycleOf, namesIn, replyStatus } from '../domain/lifecycles/categories.js';
import { ALL_NEEDS, ScopeLoader } from './context.js';
import { enqueueWebhook } from './outbox.js';
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
import {
  type Action,
  CLOSING_TEMPLATE,
  CONDITION_TESTS,
  type Condition,
  type ScripEffects,
  type ScripEvent,
  type ScripResult,
} from './kinds.js';
import { type ActionContext, type ScripRow, sendMail } from './sendMail.js';

// SPEC B6's scrip engine: a ticket's enabled scrips run on each transaction inside its unit of
// work; a matching scrip's action queues its writes (outbox rows, effects), kept only if the whole
// action succeeds. The conditions and actions are catalogued in kinds.ts, an action's mail is
// built in sendMail.ts.

/** Decision 050: a deleted ticket is hidden from its customers; their mail does not bring it back. */
const HIDDEN = 'deleted';

/** Why a customer's text was not mailed on to the other customers (SPEC D0). */
export const RELAY_HELD =
  'no staff member has replied publicly on this ticket yet: what a customer writes reaches only staff until then';

const attachmentIdsOf = prepared((db) =>
  db
    .select({ id: attachments.id })
    .from(attachments)
    .where(eq(attachments.transaction_id, sql.placeholder('id')))
    .orderBy(asc(attachments.id)),
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
