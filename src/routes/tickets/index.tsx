import { Hono, type Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { BULK_MAX_IDS, bulkSummary, bulkUpdateTickets } from '../../domain/tickets/bulk.js';
import type { Column } from '../../domain/savedViews.js';
import { appliesToQueue } from '../../domain/customFields.js';
import { type CustomerTicketJson, staffTickets } from '../../domain/tickets/serialize.js';
import { AppError, invalid, MergedError, StaleError, TakeFromError } from '../../domain/errors.js';
import { tombstoneJson } from '../../domain/merge/merge.js';
import { TombstoneSchema } from './mergeSchemas.js';
import { lookups } from '../../domain/lookups.js';
import { listResponses } from '../../domain/responses.js';
import { DEFAULT_COLUMNS, getSavedView } from '../../domain/savedViews.js';
import { effectiveFilter, listWithRequesters, liveRows, type TicketList } from '../../domain/tickets/list.js';
import type { ListedTicket } from '../../domain/tickets/requesters.js';
import { customerContext } from '../../domain/tickets/customer.js';
import { firstRunState } from '../../domain/firstRun.js';
import { sortRanks } from '../../domain/tickets/sorts.js';
import type { TicketJson } from '../../domain/tickets/serialize.js';
import type { TransactionJson } from '../../domain/transactions.js';
import {
  flatFilterParams,
  nestFilterParams,
  sortKeyOf,
  TicketListQuerySchema,
  type TicketFilter,
  type TicketListQuery,
} from '../../domain/tickets/query.js';
import { BUILTIN_LISTS, builtinListUrl, currentBuiltin } from '../../domain/tickets/builtinLists.js';
import { everyStatus, statusMenu } from '../../domain/lifecycles/menus.js';
import {
  commentOnTicket,
  createTicket,
  getAttachment,
  getTicket,
  getTicketTransaction,
  historyOfReadTicket,
  listTicketTransactions,
  updateTicket,
} from '../../domain/tickets/write.js';
import { isAdmin, isStaff, requireStaff, type Actor } from '../../domain/actor.js';
import { LiveRows, TicketListPage, TicketListRegion, type TicketListProps } from '../../views/tickets/list.js';
import { NewTicketForm } from '../../views/tickets/new.js';
import { quotable } from '../../views/tickets/quote.js';
import { BulkDeleteQuestion } from '../../views/tickets/bulkBar.js';
import { TakeFromQuestion } from '../../views/tickets/safeEdits.js';
import { statusBeforeDeletion } from '../../domain/tickets/restore.js';
import {
  PeopleChanged,
  ReplyRefused,
  TicketChanged,
  TicketLive,
  TicketPage,
  TicketReplied,
  TxnBody,
  type TicketPageProps,
} from '../../views/tickets/show.js';
import { entriesByTransaction, todayFor } from '../../domain/timeWorked/entries.js';
import type { AppEnv } from '../context.js';
import {
  actorOf,
  dbOf,
  inZone,
  isHtmx,
  noContent,
  notifyOf,
  wantsHtml,
  pathId,
  queryObject,
  readBody,
  readForm,
  respond,
  validate,
} from '../respond.js';
import { readBodyWithFiles } from '../uploads.js';
import {
  AddWatcherSchema,
  BulkResultsSchema,
  BulkUpdateSchema,
  ColumnsParamSchema,
  CommentResultSchema,
  CommentSchema,
  CreateTicketSchema,
  LiveIdsSchema,
  LiveQuerySchema,
  LiveRowsSchema,
  NotAddedSchema,
  TicketChangeSchema,
  TicketListSchema,
  TicketPageQuerySchema,
  TicketSchema,
  TransactionSchema,
  UpdateTicketSchema,
  WatcherRoleSchema,
} from './schemas.js';
import { CustomFieldSchema } from '../custom-fields/schemas.js';
import { documented } from '../openapi.js';
import { z } from 'zod';
import { addWatcher, queueWatchersOf, removeWatcher } from '../../domain/watchers.js';
import { ccNotAdded, notAddedNamed, notAddedFrom } from '../../domain/mailCc.js';
import { draftOfReadTicket } from '../../domain/tickets/drafts.js';
import { DependenciesOpen } from '../../domain/links.js';
import { linkedTickets } from '../../domain/linksPanel.js';
import { DependsQuestion } from '../../views/tickets/links.js';
import { markTicketSeen, seenUpTo } from '../../domain/tickets/reads.js';

type C = Context<AppEnv>;
const doc = documented('Tickets');

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
  const [transactions, queueWatchers, menu, responses, newAfter, customer, linked, restoreStatus] = await Promise.all([
    history ?? historyOfReadTicket(db, actor, ticket),
    staff ? queueWatchersOf(db, ticket.queue_id) : { cc: [], admin_cc: [] },
    // SPEC D3: the ticket's lifecycle: its current status and the allowed targets, in their colors.
    statusMenu(db, ticket),
    staff && replyBox ? listResponses(db, actor, { queue_id: ticket.queue_id }) : [],
    seen !== undefined ? seen : seenUpTo(db, actor, id),
    // SPEC D6: the Customer panel, drawn with the whole page (not read for every live update).
    replyBox ? customerContext(db, actor, ticket) : null,
    staff ? linkedTickets(db, ticket.links) : new Map(),
    ticket.status === 'deleted' ? statusBeforeDeletion(db, id, ticket.queue_id) : undefined,
  ]);
  // Names for the ticket's people and everyone the history names (requesters are not in the staff list).
  const named = (types: string[]) =>
    transactions
      .filter((t) => types.includes(t.type))
      .flatMap((t) => [t.old_value, t.new_value].map((v) => (v && /^\d+$/.test(v) ? Number(v) : null)));
  const people = [
    ticket.requester_id,
    ...ticket.requesters,
    ...ticket.cc,
    ...ticket.admin_cc,
    ...queueWatchers.cc,
    ...queueWatchers.admin_cc,
    ...transactions.map((t) => t.creator_id),
    ...named(['SetOwner', 'AddWatcher', 'DelWatcher']),
  ];
  // The ticket page shows no view picker: its lookups read no saved views.
  const [l, timeEntries, mailNamed] = await Promise.all([
    lookups(db, actor, people, { savedViews: false }),
    // SPEC D4: read only when the ticket has time worked or the history shows an entry of it (decision 081).
    staff && (ticket.time_worked_minutes !== 0 || transactions.some((t) => t.type === 'TimeWorked'))
      ? entriesByTransaction(db, id)
      : undefined,
    // SPEC D0: who mail named and the Cc bounds left out (less whoever is on the ticket now, below).
    staff ? notAddedNamed(db, id) : [],
  ]);
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

async function newTicketProps(c: C, actor: Actor, values: Record<string, unknown>, errors: AppError['details'] = []) {
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

const sameColumns = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((x, i) => x === b[i]);

/** /tickets?… with empty parameters dropped, and the default column set left implicit. */
function canonicalListUrl(params: Record<string, string>, defaultColumns: boolean): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== '' && !(k === 'columns' && defaultColumns)) p.set(k, v);
  const s = p.toString();
  return `/tickets${s ? `?${s}` : ''}`;
}

/** The list screen's props for a checked query (the JSON answer is its first four fields). */
async function listProps(
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

/** The built-in lists as the list page links them. */
const BUILTIN_LIST_LINKS = BUILTIN_LISTS.map((b) => ({ key: b.key, name: b.name, url: builtinListUrl(b) }));

/** The bulk form's summary, carried over its redirect for one request. */
const FLASH = 'hx_list_summary';
const FLASH_OPTIONS = { path: '/tickets', httpOnly: true, sameSite: 'Lax', maxAge: 60 } as const;
const safeDecode = (s: string) => {
  try {
    return decodeURIComponent(s);
  } catch {
    return undefined;
  }
};

/** Where a refused bulk form goes back to: its own return_to when it is a query string, else the list. */
async function formReturnTo(c: C): Promise<string> {
  const v = (await readForm(c).catch(() => ({}) as Record<string, unknown>)).return_to;
  return typeof v === 'string' && /^(\?[^\x00-\x1f\x7f#]*)?$/.test(v) && v.length <= 4000 ? v : '';
}

export function ticketRoutes() {
  const app = new Hono<AppEnv>();

  app.get(
    '/',
    doc({
      summary: 'List tickets',
      description:
        'Filters, sort and paging (the list is capped by `limit`). `cf.<key>=<value>` filters by a custom field (several combine with AND). With `live_ids` (a live list asking about the tickets its event stream named) the answer is `LiveRows` instead.',
      query: TicketListQuerySchema.extend({
        columns: ColumnsParamSchema.optional(),
        live_ids: LiveIdsSchema.optional(),
      }),
      ok: { 200: z.union([TicketListSchema, LiveRowsSchema]) },
      errors: [403, 404],
    }),
    async (c) => {
      const { columns, live_ids: liveIds, ...params } = queryObject(c);
      const query = validate(TicketListQuerySchema, nestFilterParams(params));
      const chosen = columns === undefined ? undefined : validate(ColumnsParamSchema, columns, 'columns');
      const actor = actorOf(c);
      const filters = await effectiveFilter(dbOf(c), actor, query);
      // SPEC C5: the list page asks about the tickets its live stream named, under its own query.
      if (liveIds !== undefined) {
        const ids = validate(LiveIdsSchema, liveIds, 'live_ids');
        const live = await liveRows(dbOf(c), actor, filters, ids);
        return respond(c, live, {
          title: 'Tickets',
          view: async () => (
            <LiveRows
              rows={live.rows}
              p={
                await listProps(c, actor, query, chosen, {
                  filters,
                  list: { tickets: [], total: 0, total_exact: true, limit: 0, offset: 0 },
                })
              }
            />
          ),
        });
      }
      // The JSON list is every ticket in full.
      if (!wantsHtml(c)) return respond(c, await listWithRequesters(dbOf(c), actor, filters, 'all'));
      // The page (staff's: a requester is sent to the portal before) reads only what its rows show,
      // its list beside its lookups and the first-run steps: on PostgreSQL the round trips overlap (issue 32).
      const region = c.req.header('hx-target') === 'ticket-list';
      const [props, firstRun] = await Promise.all([
        listProps(c, actor, query, chosen, { filters }),
        region
          ? undefined
          : firstRunState(dbOf(c), actor, {
              addresses: c.get('deps').env.MAIL_ADDRESSES,
              imap: c.get('deps').env.IMAP_URL !== undefined,
            }),
      ]);
      const { tickets, total, total_exact, limit, offset } = props;
      return respond(
        c,
        { tickets, total, total_exact, limit, offset },
        {
          title: 'Tickets',
          view: async () => {
            // What the last bulk change of a plain form post said (read once).
            const flash = getCookie(c, FLASH);
            if (flash !== undefined) deleteCookie(c, FLASH, { path: FLASH_OPTIONS.path });
            const summary = flash === undefined ? undefined : safeDecode(flash);
            // The filter form sends every field; the address pushed to history keeps only what is set.
            if (isHtmx(c))
              c.header(
                'HX-Push-Url',
                canonicalListUrl(props.params, !props.view && sameColumns(props.columns, DEFAULT_COLUMNS)),
              );
            return region ? (
              <TicketListRegion {...props} summary={summary} />
            ) : (
              <TicketListPage {...props} summary={summary} firstRun={firstRun} />
            );
          },
        },
      );
    },
  );

  // SPEC C4: one change to many tickets, each in its own unit of work (decision 035).
  app.patch(
    '/',
    doc({
      summary: 'Change many tickets',
      description: `The same change to up to ${BULK_MAX_IDS} tickets, each in its own unit of work: one ticket's failure is its own \`results\` entry.`,
      body: BulkUpdateSchema,
      ok: { 200: BulkResultsSchema },
      errors: [409],
    }),
    async (c) => {
      const actor = actorOf(c);
      const db = dbOf(c);
      let input: z.infer<typeof BulkUpdateSchema>;
      try {
        input = await readBody(c, BulkUpdateSchema);
      } catch (e) {
        // A plain form post goes back to its list, saying what was wrong; htmx shows the error at the form.
        if (!(e instanceof AppError) || !wantsHtml(c) || isHtmx(c)) throw e;
        const back = await formReturnTo(c);
        setCookie(
          c,
          FLASH,
          encodeURIComponent(
            `Nothing changed: ${e.details?.map((d) => d.message).join('; ') ?? e.message}`.slice(0, 1000),
          ),
          FLASH_OPTIONS,
        );
        return c.redirect(`/tickets${back}`, 303);
      }
      // SPEC D6: a bulk change to deleted asks first; without confirm nothing changes.
      if (input.changes.status === 'deleted' && !input.confirm) {
        const n = input.ids.length;
        const question = `Delete ${n === 1 ? `ticket #${input.ids[0]}` : `${n} tickets`}? Nothing was changed: send the change again with confirm: true to delete.`;
        if (!wantsHtml(c)) throw new AppError('conflict', question);
        const props = { ids: input.ids, changes: input.changes, returnTo: input.return_to ?? '' };
        if (isHtmx(c)) {
          c.header('HX-Retarget', '#bulk-error');
          c.header('HX-Reswap', 'innerHTML');
          return c.html(<BulkDeleteQuestion {...props} />);
        }
        return c.render(<BulkDeleteQuestion {...props} standalone />, { title: 'Delete tickets?' });
      }
      const changes = input.force ? { ...input.changes, force: true } : input.changes;
      const results = await bulkUpdateTickets(db, actor, input.ids, changes, notifyOf(c));
      if (!wantsHtml(c)) return c.json({ results });
      const summary = bulkSummary(results);
      const back = input.return_to ?? '';
      if (!isHtmx(c)) {
        setCookie(c, FLASH, encodeURIComponent(summary.slice(0, 1000)), FLASH_OPTIONS);
        return c.redirect(`/tickets${back}`, 303);
      }
      // htmx: the list region again, as its query string asks, with the summary. The tickets have
      // changed by now: a return_to that is no list (hand-made) shows the plain list, not a 422.
      const { columns, ...rest } = Object.fromEntries(new URLSearchParams(back));
      const query = TicketListQuerySchema.safeParse(nestFilterParams(rest));
      const chosen = columns === undefined ? undefined : ColumnsParamSchema.safeParse(columns);
      const asked =
        query.success && chosen?.success !== false
          ? await listProps(c, actor, query.data, chosen?.data).catch((e) => {
              if (e instanceof AppError) return null;
              throw e;
            })
          : null;
      const props = asked ?? (await listProps(c, actor, {}, undefined));
      return c.html(inZone(c, <TicketListRegion {...props} summary={summary} />));
    },
  );

  app.get(
    '/new',
    doc({
      summary: 'What a new ticket asks for',
      description: 'The custom fields of the new-ticket form (for the queue given as `queue_id`, else General).',
      ok: { 200: z.strictObject({ custom_fields: z.array(CustomFieldSchema) }) },
    }),
    async (c) => {
      const actor = actorOf(c);
      const values = nestFilterParams(queryObject(c));
      const props = await newTicketProps(c, actor, values);
      return respond(
        c,
        { custom_fields: props.fields },
        {
          title: 'New ticket',
          view: () =>
            isHtmx(c) ? (
              <NewTicketForm {...props} />
            ) : (
              <section class="narrow">
                <NewTicketForm {...props} page />
              </section>
            ),
        },
      );
    },
  );

  app.post(
    '/',
    doc({
      summary: 'Open a ticket',
      body: CreateTicketSchema,
      ok: { 201: TicketChangeSchema },
      errors: [404],
    }),
    async (c) => {
      const actor = actorOf(c);
      try {
        const input = await readBody(c, CreateTicketSchema);
        const result = await createTicket(dbOf(c), actor, input, notifyOf(c));
        if (isHtmx(c)) c.header('HX-Redirect', `/tickets/${result.ticket.id}`);
        return respond(c, result, {
          status: 201,
          title: result.ticket.subject,
          location: `/tickets/${result.ticket.id}`,
        });
      } catch (e) {
        // The new-ticket form shows its errors next to the fields, with what was typed kept
        // (in the dialog for htmx; as the new-ticket page again for a plain form post).
        if (!(e instanceof AppError) || e.code !== 'validation_failed' || !wantsHtml(c)) throw e;
        const values = await c.req.parseBody({ all: true, dot: true }).catch(() => ({}));
        const props = await newTicketProps(c, actor, values, e.details);
        if (isHtmx(c)) return c.html(<NewTicketForm {...props} />, 422);
        c.status(422);
        return c.render(
          <section class="narrow">
            <NewTicketForm {...props} page />
          </section>,
          { title: 'New ticket' },
        );
      }
    },
  );

  app.get(
    '/:id',
    doc({
      summary: 'A ticket',
      description:
        'A merged ticket answers `{ ticket: { id, merged_into } }` (a page: a redirect to the ticket it was merged into).',
      query: TicketPageQuerySchema,
      ok: { 200: z.union([TicketSchema, TombstoneSchema]) },
    }),
    async (c) => {
      const actor = actorOf(c);
      const { quote } = validate(TicketPageQuerySchema, c.req.query());
      let ticket;
      try {
        ticket = await getTicket(dbOf(c), actor, pathId(c));
      } catch (e) {
        // SPEC D3 (decision 076): a tombstone names where it lives now; a page goes there.
        if (!(e instanceof MergedError)) throw e;
        if (wantsHtml(c)) return c.redirect(`/tickets/${e.mergedInto}`, 302);
        return c.json(tombstoneJson(e.ticketId, e.mergedInto));
      }
      return respond(c, ticket, {
        title: `#${ticket.id} ${ticket.subject}`,
        view: async () => {
          // SPEC D6: opening the page (not a JSON read, not a live refresh) marks the ticket seen;
          // the entries newer than what was seen before are marked New, and the draft fills the box.
          // The three asked together (the ticket was read above, so neither reads it again).
          const seen = markTicketSeen(dbOf(c), actor, ticket.id);
          const [before, savedDraft, p] = await Promise.all([
            seen,
            isStaff(actor) ? draftOfReadTicket(dbOf(c), actor, ticket) : null,
            pageProps(c, actor, ticket.id, ticket, true, undefined, seen),
          ]);
          // SPEC D6: a Reply link without JavaScript; only a public message this reader sees is quoted.
          if (quote !== undefined && !p.transactions.some((t) => t.id === quote && quotable(t)))
            throw invalid('quote', `Ticket #${ticket.id} has no message #${quote} to quote`);
          return <TicketPage p={{ ...p, newAfter: before, savedDraft, quote }} />;
        },
      });
    },
  );

  app.patch(
    '/:id',
    doc({
      summary: 'Change a ticket',
      description: 'One history entry per changed field; a change to nothing makes none.',
      body: UpdateTicketSchema,
      ok: { 200: TicketChangeSchema },
      errors: [409],
    }),
    async (c) => {
      const id = pathId(c);
      const actor = actorOf(c);
      const input = await readBody(c, UpdateTicketSchema);
      let result;
      // SPEC D6: a move into or out of `deleted` takes the reply box away or brings it back: htmx reloads the page.
      const before = input.status !== undefined && isHtmx(c) ? (await getTicket(dbOf(c), actor, id)).status : undefined;
      try {
        result = await updateTicket(dbOf(c), actor, id, input, notifyOf(c));
      } catch (e) {
        // SPEC D3: "Resolve anyway?", shown as the Take question is.
        if (e instanceof DependenciesOpen && wantsHtml(c)) {
          const q = <DependsQuestion ticketId={id} status={e.target} open={e.open} standalone={!isHtmx(c)} />;
          if (isHtmx(c)) return c.html(q, 409);
          c.status(409);
          return c.render(q, { title: `#${id}: not done yet` });
        }
        // SPEC D6: "Take from Ann?": htmx shows the question where the form says its errors; a plain form gets it as a page.
        if (!(e instanceof TakeFromError) || !wantsHtml(c)) throw e;
        const question = <TakeFromQuestion ticketId={id} actorId={actor.id} owner={e.owner} standalone={!isHtmx(c)} />;
        if (isHtmx(c)) return c.html(question, 409);
        c.status(409);
        return c.render(question, { title: `Take from ${e.owner.name}?` });
      }
      if (before !== undefined && (before === 'deleted') !== (result.ticket.status === 'deleted'))
        c.header('HX-Refresh', 'true');
      return respond(c, result, {
        title: `#${id}`,
        location: `/tickets/${id}`,
        view: async () => <TicketChanged p={await pageProps(c, actor, id)} />,
      });
    },
  );

  app.get(
    '/:id/transactions',
    doc({
      summary: "A ticket's history",
      description: 'A merged ticket: 409 with `merged_into` (its history is there).',
      ok: { 200: z.strictObject({ transactions: z.array(TransactionSchema) }) },
      errors: [409],
    }),
    async (c) => {
      const id = pathId(c);
      return respond(
        c,
        { transactions: await listTicketTransactions(dbOf(c), actorOf(c), id) },
        { title: `#${id} history` },
      );
    },
  );

  // SPEC D0: who mail named on the ticket and the Cc bounds left out, with the reason (staff; the page's People box).
  app.get(
    '/:id/cc-not-added',
    doc({
      summary: 'People mail named but the Cc bounds left out',
      ok: { 200: z.strictObject({ cc_not_added: z.array(NotAddedSchema) }) },
      errors: [403],
    }),
    async (c) => {
      const id = pathId(c);
      const notAdded = await ccNotAdded(dbOf(c), actorOf(c), id);
      return respond(c, { cc_not_added: notAdded }, { title: `#${id} not added from mail` });
    },
  );

  app.get(
    '/:id/transactions/:txnId',
    doc({ summary: 'One history entry', ok: { 200: z.strictObject({ transaction: TransactionSchema }) } }),
    async (c) => {
      const id = pathId(c);
      const txnId = pathId(c, 'txnId');
      const transaction = await getTicketTransaction(dbOf(c), actorOf(c), id, txnId);
      return respond(
        c,
        { transaction },
        { title: `#${id} message ${txnId}`, view: () => <TxnBody ticketId={id} t={transaction} whole /> },
      );
    },
  );

  app.post(
    '/:id/comment',
    doc({
      summary: 'Reply or add a note',
      description:
        '`internal` defaults to true (a note). Files come as multipart `attachments` or as JSON base64. 409 `stale` when mail came in after `seen_transaction_id` (unless `force`).',
      body: CommentSchema,
      files: true,
      ok: { 201: CommentResultSchema },
      errors: [409],
    }),
    async (c) => {
      const id = pathId(c);
      const actor = actorOf(c);
      // SPEC C4: files come as multipart `attachments` or JSON base64; MAX_ATTACHMENT_BYTES in all.
      const { input, attachments } = await readBodyWithFiles(c, CommentSchema);
      if (input.body.trim() === '' && attachments.length === 0) throw invalid('body', 'Must not be empty');
      let result;
      try {
        result = await commentOnTicket(
          dbOf(c),
          actor,
          id,
          { ...input, attachments },
          { maxAttachmentBytes: c.get('deps').env.MAX_ATTACHMENT_BYTES, notify: notifyOf(c) },
        );
      } catch (e) {
        // SPEC C5: newer mail came in. The page shows it above the reply box, which keeps what was typed.
        if (!(e instanceof StaleError) || !wantsHtml(c)) throw e;
        const p = await pageProps(c, actor, id, undefined, !isHtmx(c));
        if (isHtmx(c)) return c.html(inZone(c, <ReplyRefused p={p} stale={e.transactions} />), 409);
        const reply = {
          body: input.body,
          internal: input.internal ?? true,
          set_status: input.set_status,
          time_minutes: input.time_minutes,
          files: attachments.length,
          stale: e.transactions,
        };
        c.status(409);
        return c.render(<TicketPage p={{ ...p, reply }} />, { title: `#${id} ${p.ticket.subject}` });
      }
      return respond(c, result, {
        status: 201,
        title: `#${id}`,
        location: `/tickets/${id}`,
        view: async () => <TicketReplied p={await pageProps(c, actor, id, undefined, true)} />,
      });
    },
  );

  // SPEC C5: what changed on the ticket since the entry `after` (the page's last): for a page, the
  // new entries appended to its history and its other parts out of band (TicketLive); JSON
  // clients get the same entries and the ticket as it is now.
  app.get(
    '/:id/live',
    doc({
      summary: 'What changed since a history entry',
      query: LiveQuerySchema,
      ok: { 200: z.strictObject({ transactions: z.array(TransactionSchema), ticket: TicketSchema }) },
    }),
    async (c) => {
      const id = pathId(c);
      const { after } = validate(LiveQuerySchema, c.req.query());
      const actor = actorOf(c);
      const db = dbOf(c);
      const ticket = await getTicket(db, actor, id);
      const transactions = await listTicketTransactions(db, actor, id, { after });
      return respond(
        c,
        { transactions, ticket },
        {
          title: `#${id}`,
          view: async () => <TicketLive p={await pageProps(c, actor, id, ticket, false, transactions)} />,
        },
      );
    },
  );

  // SPEC C5: the reply box says its writer is typing (throttled by the page); others see it live.
  app.post('/:id/typing', doc({ summary: 'Say you are writing a reply', ok: { 204: null } }), async (c) => {
    const id = pathId(c);
    const actor = actorOf(c);
    requireStaff(actor);
    await getTicket(dbOf(c), actor, id);
    c.get('deps').hub?.typing(id, { id: actor.id, name: actor.name || actor.email });
    return c.body(null, 204);
  });

  // SPEC C2: people on the ticket. Each change is an AddWatcher/DelWatcher transaction.
  app.post(
    '/:id/watchers',
    doc({
      summary: 'Add a requester, Cc or AdminCc',
      body: AddWatcherSchema,
      ok: { 201: CommentResultSchema },
      errors: [409],
    }),
    async (c) => {
      const id = pathId(c);
      const actor = actorOf(c);
      const input = await readBody(c, AddWatcherSchema);
      const result = await addWatcher(dbOf(c), actor, id, input, notifyOf(c));
      return respond(c, result, {
        status: 201,
        title: `#${id}`,
        location: `/tickets/${id}`,
        view: async () => <PeopleChanged p={await pageProps(c, actor, id)} />,
      });
    },
  );

  app.delete(
    '/:id/watchers/:role/:userId',
    doc({
      summary: 'Take someone off a ticket',
      path: { role: WatcherRoleSchema },
      ok: { 204: null },
      errors: [422],
    }),
    async (c) => {
      const id = pathId(c);
      const actor = actorOf(c);
      const role = validate(WatcherRoleSchema, c.req.param('role'), 'role');
      const userId = pathId(c, 'userId');
      await removeWatcher(dbOf(c), actor, id, role, userId, notifyOf(c));
      if (isHtmx(c)) return c.html(inZone(c, <PeopleChanged p={await pageProps(c, actor, id)} />));
      return noContent(c, `/tickets/${id}`);
    },
  );
  return app;
}

/** GET /attachments/:id — always a download (never rendered inline by the browser). */
export function attachmentRoutes() {
  const app = new Hono<AppEnv>();
  app.get(
    '/:id',
    documented('Attachments')({
      summary: 'Download a file',
      description: "Always a download, with the file's own `Content-Type`.",
      ok: { 200: { media: 'application/octet-stream', description: "The file's bytes" } },
    }),
    async (c) => {
      const a = await getAttachment(dbOf(c), actorOf(c), pathId(c));
      return c.body(new Uint8Array(a.content), 200, {
        'Content-Type': a.content_type,
        'Content-Disposition': `attachment; filename="${a.filename.replace(/[^\x20-\x7e]|["\\]/g, '_')}"; filename*=UTF-8''${encodeURIComponent(a.filename)}`,
        'Content-Security-Policy': "sandbox; default-src 'none'",
        'Cache-Control': 'private, max-age=3600',
      });
    },
  );
  return app;
}
