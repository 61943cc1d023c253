import { Hono, type Context } from 'hono';
import { appliesToQueue } from '../../domain/customFields.js';
import { AppError } from '../../domain/errors.js';
import { lookups } from '../../domain/lookups.js';
import { DEFAULT_COLUMNS, getSavedView } from '../../domain/savedViews.js';
import { effectiveFilter, listByFilter } from '../../domain/tickets/list.js';
import type { TicketJson } from '../../domain/tickets/serialize.js';
import { flatFilterParams, nestFilterParams, TicketListQuerySchema } from '../../domain/tickets/query.js';
import { commentOnTicket, createTicket, getAttachment, getTicket, getTicketTransaction, listTicketTransactions, updateTicket } from '../../domain/tickets/write.js';
import { isStaff, type Actor } from '../../domain/actor.js';
import { TicketListPage, TicketListRegion, type TicketListProps } from '../../views/tickets/list.js';
import { NewTicketForm } from '../../views/tickets/new.js';
import { PeopleChanged, TicketChanged, TicketPage, TicketReplied, TxnBody, type TicketPageProps } from '../../views/tickets/show.js';
import type { AppEnv } from '../context.js';
import { actorOf, dbOf, inZone, isHtmx, noContent, wantsHtml, pathId, queryObject, readBody, respond, validate } from '../respond.js';
import { AddWatcherSchema, ColumnsParamSchema, CommentSchema, CreateTicketSchema, UpdateTicketSchema, WatcherRoleSchema } from './schemas.js';
import { addWatcher, queueWatchersOf, removeWatcher } from '../../domain/watchers.js';

type C = Context<AppEnv>;

/** Everything the ticket page shows, loaded only for HTML. */
async function pageProps(c: C, actor: Actor, id: number, loaded?: TicketJson): Promise<TicketPageProps> {
  const db = dbOf(c);
  const ticket = loaded ?? await getTicket(db, actor, id);
  const transactions = await listTicketTransactions(db, actor, id);
  const staff = isStaff(actor);
  // The queue's Cc and AdminCc watch this ticket too (SPEC C2); customers do not see who watches.
  const queueWatchers = staff ? await queueWatchersOf(db, ticket.queue_id) : { cc: [], admin_cc: [] };
  // Names for the ticket's people and everyone the history names (requesters are not in the staff list).
  const named = (types: string[]) => transactions.filter((t) => types.includes(t.type))
    .flatMap((t) => [t.old_value, t.new_value].map((v) => (v && /^\d+$/.test(v) ? Number(v) : null)));
  const people = [ticket.requester_id, ...ticket.requesters, ...ticket.cc, ...ticket.admin_cc, ...queueWatchers.cc, ...queueWatchers.admin_cc,
    ...transactions.map((t) => t.creator_id), ...named(['SetOwner', 'AddWatcher', 'DelWatcher'])];
  const l = await lookups(db, actor, people);
  return {
    ticket, transactions, lookups: l, staff, actorId: actor.id, queueWatchers,
    fields: l.customFields.filter((f) => appliesToQueue(f, ticket.queue_id)),
  };
}

async function newTicketProps(c: C, actor: Actor, values: Record<string, unknown>, errors: AppError['details'] = []) {
  const l = await lookups(dbOf(c), actor);
  const queueId = Number(values.queue_id) || l.queues.find((q) => q.name === 'General')?.id || l.queues[0]?.id;
  return { lookups: l, fields: l.customFields.filter((f) => appliesToQueue(f, queueId)), values, errors: errors ?? [], staff: isStaff(actor) };
}

const sameColumns = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x, i) => x === b[i]);

/** /tickets?… with empty parameters dropped, and the default column set left implicit. */
function canonicalListUrl(params: Record<string, string>, defaultColumns: boolean): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== '' && !(k === 'columns' && defaultColumns)) p.set(k, v);
  const s = p.toString();
  return `/tickets${s ? `?${s}` : ''}`;
}

export function ticketRoutes() {
  const app = new Hono<AppEnv>();

  app.get('/', async (c) => {
    const { columns, ...params } = queryObject(c);
    const query = validate(TicketListQuerySchema, nestFilterParams(params));
    const chosen = columns === undefined ? undefined : validate(ColumnsParamSchema, columns, 'columns');
    const db = dbOf(c);
    const actor = actorOf(c);
    const filters = await effectiveFilter(db, actor, query);
    const list = await listByFilter(db, actor, filters);
    return respond(c, list, {
      title: 'Tickets',
      view: async () => {
        const view = query.view_id !== undefined ? await getSavedView(db, actor, query.view_id) : null;
        const props: TicketListProps = {
          ...list,
          // The list links to itself with the checked parameters, never the raw query string.
          params: { ...flatFilterParams(query), ...(chosen ? { columns: chosen.join(',') } : {}) },
          filters,
          view,
          columns: chosen?.length ? chosen : view?.columns ?? DEFAULT_COLUMNS,
          widths: view?.column_widths ?? {},
          lookups: await lookups(db, actor),
        };
        // The filter form sends every field; the address pushed to history keeps only what is set.
        if (isHtmx(c)) c.header('HX-Push-Url', canonicalListUrl(props.params, !view && sameColumns(props.columns, DEFAULT_COLUMNS)));
        return c.req.header('hx-target') === 'ticket-list' ? <TicketListRegion {...props} /> : <TicketListPage {...props} />;
      },
    });
  });

  app.get('/new', async (c) => {
    const actor = actorOf(c);
    const values = nestFilterParams(queryObject(c));
    const props = await newTicketProps(c, actor, values);
    return respond(c, { custom_fields: props.fields }, {
      title: 'New ticket',
      view: () => (isHtmx(c) ? <NewTicketForm {...props} /> : <section class="narrow"><NewTicketForm {...props} page /></section>),
    });
  });

  app.post('/', async (c) => {
    const actor = actorOf(c);
    try {
      const input = await readBody(c, CreateTicketSchema);
      const result = await createTicket(dbOf(c), actor, input);
      if (isHtmx(c)) c.header('HX-Redirect', `/tickets/${result.ticket.id}`);
      return respond(c, result, { status: 201, title: result.ticket.subject, location: `/tickets/${result.ticket.id}` });
    } catch (e) {
      // The new-ticket form shows its errors next to the fields, with what was typed kept
      // (in the dialog for htmx; as the new-ticket page again for a plain form post).
      if (!(e instanceof AppError) || e.code !== 'validation_failed' || !wantsHtml(c)) throw e;
      const values = await c.req.parseBody({ all: true, dot: true }).catch(() => ({}));
      const props = await newTicketProps(c, actor, values, e.details);
      if (isHtmx(c)) return c.html(<NewTicketForm {...props} />, 422);
      c.status(422);
      return c.render(<section class="narrow"><NewTicketForm {...props} page /></section>, { title: 'New ticket' });
    }
  });

  app.get('/:id', async (c) => {
    const actor = actorOf(c);
    const ticket = await getTicket(dbOf(c), actor, pathId(c));
    return respond(c, ticket, { title: `#${ticket.id} ${ticket.subject}`, view: async () => <TicketPage p={await pageProps(c, actor, ticket.id, ticket)} /> });
  });

  app.patch('/:id', async (c) => {
    const id = pathId(c);
    const actor = actorOf(c);
    const input = await readBody(c, UpdateTicketSchema);
    const result = await updateTicket(dbOf(c), actor, id, input);
    return respond(c, result, { title: `#${id}`, location: `/tickets/${id}`, view: async () => <TicketChanged p={await pageProps(c, actor, id)} /> });
  });

  app.get('/:id/transactions', async (c) => {
    const id = pathId(c);
    return respond(c, { transactions: await listTicketTransactions(dbOf(c), actorOf(c), id) }, { title: `#${id} history` });
  });

  app.get('/:id/transactions/:txnId', async (c) => {
    const id = pathId(c);
    const txnId = pathId(c, 'txnId');
    const transaction = await getTicketTransaction(dbOf(c), actorOf(c), id, txnId);
    return respond(c, { transaction }, { title: `#${id} message ${txnId}`, view: () => <TxnBody ticketId={id} t={transaction} whole /> });
  });

  app.post('/:id/comment', async (c) => {
    const id = pathId(c);
    const actor = actorOf(c);
    const input = await readBody(c, CommentSchema);
    const result = await commentOnTicket(dbOf(c), actor, id, input);
    return respond(c, result, { status: 201, title: `#${id}`, location: `/tickets/${id}`, view: async () => <TicketReplied p={await pageProps(c, actor, id)} /> });
  });

  // SPEC C2: people on the ticket. Each change is an AddWatcher/DelWatcher transaction.
  app.post('/:id/watchers', async (c) => {
    const id = pathId(c);
    const actor = actorOf(c);
    const input = await readBody(c, AddWatcherSchema);
    const result = await addWatcher(dbOf(c), actor, id, input);
    return respond(c, result, { status: 201, title: `#${id}`, location: `/tickets/${id}`, view: async () => <PeopleChanged p={await pageProps(c, actor, id)} /> });
  });

  app.delete('/:id/watchers/:role/:userId', async (c) => {
    const id = pathId(c);
    const actor = actorOf(c);
    const role = validate(WatcherRoleSchema, c.req.param('role'), 'role');
    const userId = pathId(c, 'userId');
    await removeWatcher(dbOf(c), actor, id, role, userId);
    if (isHtmx(c)) return c.html(inZone(c, <PeopleChanged p={await pageProps(c, actor, id)} />));
    return noContent(c, `/tickets/${id}`);
  });
  return app;
}

/** GET /attachments/:id — always a download (never rendered inline by the browser). */
export function attachmentRoutes() {
  const app = new Hono<AppEnv>();
  app.get('/:id', async (c) => {
    const a = await getAttachment(dbOf(c), actorOf(c), pathId(c));
    return c.body(new Uint8Array(a.content), 200, {
      'Content-Type': a.content_type,
      'Content-Disposition': `attachment; filename="${a.filename.replace(/[^\x20-\x7e]|["\\]/g, '_')}"; filename*=UTF-8''${encodeURIComponent(a.filename)}`,
      'Content-Security-Policy': "sandbox; default-src 'none'",
      'Cache-Control': 'private, max-age=3600',
    });
  });
  return app;
}
