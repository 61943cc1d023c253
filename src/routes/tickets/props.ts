import type { Context } from 'hono';
import { isAdmin, isStaff, requireStaff, type Actor } from '../../domain/actor.js';
import { appliesToQueue } from '../../domain/customFields.js';
import type { AppError } from '../../domain/errors.js';
import { everyStatus, statusMenu } from '../../domain/lifecycles/menus.js';
import { linkedTickets } from '../../domain/linksPanel.js';
import { lookups } from '../../domain/lookups.js';
import { notAddedFrom, notAddedNamed } from '../../domain/mailCc.js';
import { listResponses } from '../../domain/responses.js';
import { type Column, DEFAULT_COLUMNS, getSavedView } from '../../domain/savedViews.js';
import { BUILTIN_LISTS, builtinListUrl, currentBuiltin } from '../../domain/tickets/builtinLists.js';
import { customerContext } from '../../domain/tickets/customer.js';
import { effectiveFilter, listWithRequesters, type TicketList } from '../../domain/tickets/list.js';
import { flatFilterParams, sortKeyOf, type TicketFilter, type TicketListQuery } from '../../domain/tickets/query.js';
import { seenUpTo } from '../../domain/tickets/reads.js';
import type { ListedTicket } from '../../domain/tickets/requesters.js';
import { statusBeforeDeletion } from '../../domain/tickets/restore.js';
import { type CustomerTicketJson, staffTickets, type TicketJson } from '../../domain/tickets/serialize.js';
import { sortRanks } from '../../domain/tickets/sorts.js';
import { getTicket, historyOfReadTicket } from '../../domain/tickets/read.js';
import { entriesByTransaction, todayFor } from '../../domain/timeWorked/entries.js';
import type { TransactionJson } from '../../domain/transactions.js';
import { queueWatchersOf } from '../../domain/watchers.js';
import type { TicketListProps } from '../../views/tickets/list.js';
import type { TicketPageProps } from '../../views/tickets/show.js';
import type { AppEnv } from '../context.js';
import { dbOf } from '../respond.js';

// What the ticket screens show, read for HTML only: the ticket page's props, the new-ticket
// form's and the list's. The routes in ./index.tsx (and the tags and time routes, which answer
// with the ticket page) hand them to the views.

type C = Context<AppEnv>;

/**
 * Everything the ticket page shows, loaded only for HTML. The canned responses are read only for
 * an answer that renders the reply box (`replyBox`): the page, and the fragment after a reply.
 * `history`: the entries to show, when not the whole history (the live update's new ones).
 */
export async function pageProps(
  c: C,
  actor: Actor,
  id: number,
  loaded?: CustomerTicketJson,
  replyBox = false,
  history?: TransactionJson[],
  /** What the reader had seen, when the caller reads it (opening the page marks it seen, beside these reads). */
  seen?: number | null | Promise<number | null>,
): Promise<TicketPageProps> {
  const db = dbOf(c);
  // The staff page: requesters are in the portal (docs/decisions/050), so the ticket has every field.
  requireStaff(actor);
  const staff = isStaff(actor);
  // The ticket first: reading it is what refuses a reader who may not see it.
  const ticket = (loaded ?? (await getTicket(db, actor, id))) as TicketJson;
  // Then independent reads, asked together: on PostgreSQL each is a round trip (decision 088),
  // and the page waits for the longest chain of them, not their sum (decision 094).
  // The queue's Cc and AdminCc watch this ticket too (SPEC C2); customers do not see who watches.
  const transactionsRead = history ? Promise.resolve(history) : historyOfReadTicket(db, actor, ticket);
  const queueWatchersRead = staff ? queueWatchersOf(db, ticket.queue_id) : Promise.resolve({ cc: [], admin_cc: [] });
  // Names for the ticket's people and everyone the history names (requesters are not in the staff list).
  const people = async () => {
    const [transactions, queueWatchers] = await Promise.all([transactionsRead, queueWatchersRead]);
    const named = (types: string[]) =>
      transactions
        .filter((t) => types.includes(t.type))
        .flatMap((t) => [t.old_value, t.new_value].map((v) => (v && /^\d+$/.test(v) ? Number(v) : null)));
    return [
      ticket.requester_id,
      ...ticket.requesters,
      ...ticket.cc,
      ...ticket.admin_cc,
      ...queueWatchers.cc,
      ...queueWatchers.admin_cc,
      ...transactions.map((t) => t.creator_id),
      ...named(['SetOwner', 'AddWatcher', 'DelWatcher']),
    ];
  };
  // SPEC D4: time entries, read when the ticket has time worked (or, below, the history shows an entry of it; decision 081).
  const entriesRead = staff && ticket.time_worked_minutes !== 0 ? entriesByTransaction(db, id) : undefined;
  // The lookups start with the rest (decision 097): only their users by id wait for the history.
  // The ticket page shows no view picker: its lookups read no saved views.
  const [transactions, queueWatchers, menu, responses, newAfter, customer, linked, restoreStatus, l, mailNamed] =
    await Promise.all([
      transactionsRead,
      queueWatchersRead,
      // SPEC D3: the ticket's lifecycle: its current status and the allowed targets, in their colors.
      statusMenu(db, ticket),
      staff && replyBox ? listResponses(db, actor, { queue_id: ticket.queue_id }) : [],
      seen !== undefined ? seen : seenUpTo(db, actor, id),
      // SPEC D6: the Customer panel, drawn with the whole page (not read for every live update).
      replyBox ? customerContext(db, actor, ticket) : null,
      staff ? linkedTickets(db, ticket.links) : new Map(),
      ticket.status === 'deleted' ? statusBeforeDeletion(db, id, ticket.queue_id) : undefined,
      lookups(db, actor, people(), { savedViews: false }),
      // SPEC D0: who mail named and the Cc bounds left out (less whoever is on the ticket now, below).
      staff ? notAddedNamed(db, id) : [],
      entriesRead,
    ]);
  const timeEntries =
    entriesRead === undefined && staff && transactions.some((t) => t.type === 'TimeWorked')
      ? await entriesByTransaction(db, id)
      : await entriesRead;
  const onTicket = new Set([...ticket.requesters, ...ticket.cc, ...queueWatchers.cc]);
  const notAdded = notAddedFrom(mailNamed, new Set(l.users.filter((u) => onTicket.has(u.id)).map((u) => u.email)));
  return {
    ticket,
    transactions,
    lookups: l,
    staff,
    actorId: actor.id,
    queueWatchers,
    ...menu,
    notAdded,
    fields: l.customFields.filter((f) => appliesToQueue(f, ticket.queue_id)),
    responses,
    maxAttachmentBytes: c.get('deps').env.MAX_ATTACHMENT_BYTES,
    newAfter,
    // SPEC D6: the subject form open without JavaScript (a GET of the page only); a deleted ticket's Restore.
    editSubject: c.req.method === 'GET' && c.req.query('edit') === 'subject',
    restoreStatus,
    customer,
    linked: [...linked.values()],
    timeEntries,
    today: todayFor(db, actor),
  };
}

export async function newTicketProps(
  c: C,
  actor: Actor,
  values: Record<string, unknown>,
  errors: AppError['details'] = [],
) {
  const l = await lookups(dbOf(c), actor);
  const queueId = Number(values.queue_id) || l.queues.find((q) => q.name === 'General')?.id || l.queues[0]?.id;
  return {
    lookups: l,
    fields: l.customFields.filter((f) => appliesToQueue(f, queueId)),
    values,
    errors: errors ?? [],
    staff: isStaff(actor),
  };
}

export const sameColumns = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((x, i) => x === b[i]);

/** /tickets?… with empty parameters dropped, and the default column set left implicit. */
export function canonicalListUrl(params: Record<string, string>, defaultColumns: boolean): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== '' && !(k === 'columns' && defaultColumns)) p.set(k, v);
  const s = p.toString();
  return `/tickets${s ? `?${s}` : ''}`;
}

/** The built-in lists as the list page links them. */
const BUILTIN_LIST_LINKS = BUILTIN_LISTS.map((b) => ({ key: b.key, name: b.name, url: builtinListUrl(b) }));

/** The list screen's props for a checked query (the JSON answer is its first four fields). */
export async function listProps(
  c: C,
  actor: Actor,
  query: TicketListQuery,
  chosen: Column[] | undefined,
  /** The filters checked already, and the list when read already (live rows: none). */
  loaded?: { filters: TicketFilter; list?: Omit<TicketList, 'tickets'> & { tickets: ListedTicket[] } },
): Promise<TicketListProps> {
  const db = dbOf(c);
  const filters = loaded?.filters ?? (await effectiveFilter(db, actor, query));
  const sort = filters.sort ?? '-updated';
  // Side by side: on PostgreSQL each read is a round trip (issue 32).
  const [found, view, l, ranks, statuses] = await Promise.all([
    loaded?.list ?? listWithRequesters(db, actor, filters, 'row'),
    query.view_id !== undefined ? getSavedView(db, actor, query.view_id) : null,
    lookups(db, actor),
    sortRanks(db, sort),
    // SPEC D3: the statuses of every lifecycle, for the filter and the bulk bar.
    everyStatus(db),
  ]);
  const list = { ...found, tickets: staffTickets(actor, found.tickets) as ListedTicket[] };
  const tickets = list.tickets;
  // The list links to itself with the checked parameters, never the raw query string.
  const params = { ...flatFilterParams(query), ...(chosen ? { columns: chosen.join(',') } : {}) };
  return {
    ...list,
    tickets,
    params,
    filters,
    view,
    columns: chosen?.length ? chosen : (view?.columns ?? DEFAULT_COLUMNS),
    widths: view?.column_widths ?? {},
    lookups: l,
    bulk: isStaff(actor),
    shareTeams: l.teams.filter((t) => isAdmin(actor) || t.members.includes(actor.id)),
    canEditView: view !== null && (view.owner_id === actor.id || isAdmin(actor)),
    ...statuses,
    builtinLists: BUILTIN_LIST_LINKS,
    builtin: currentBuiltin(params),
    sortKeys: Object.fromEntries(tickets.map((t) => [t.id, sortKeyOf(t, sort, ranks)])),
  };
}
