import { Hono } from 'hono';
import { AppError, invalid, MergedError, StaleError, TakeFromError } from '../../domain/errors.js';
import { tombstoneJson } from '../../domain/merge/merge.js';
import { TombstoneSchema } from './mergeSchemas.js';
import { nestFilterParams } from '../../domain/tickets/query.js';
import { commentOnTicket } from '../../domain/tickets/comment.js';
import { createTicket, updateTicket } from '../../domain/tickets/write.js';
import { getTicket, getTicketTransaction, listTicketTransactions } from '../../domain/tickets/read.js';
import { isStaff, requireStaff } from '../../domain/actor.js';
import { NewTicketForm } from '../../views/tickets/new.js';
import { quotable } from '../../views/tickets/quote.js';
import { TakeFromQuestion } from '../../views/tickets/safeEdits.js';
import {
  PeopleChanged,
  ReplyRefused,
  TicketChanged,
  TicketLive,
  TicketPage,
  TicketReplied,
  TxnBody,
} from '../../views/tickets/show.js';
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
  respond,
  validate,
} from '../respond.js';
import { readBodyWithFiles } from '../uploads.js';
import { newTicketProps, pageProps } from './props.js';
import {
  AddWatcherSchema,
  CommentResultSchema,
  CommentSchema,
  CreateTicketSchema,
  LiveQuerySchema,
  NotAddedSchema,
  TicketChangeSchema,
  TicketPageQuerySchema,
  TicketSchema,
  TransactionSchema,
  UpdateTicketSchema,
  WatcherRoleSchema,
} from './schemas.js';
import { CustomFieldSchema } from '../custom-fields/schemas.js';
import { documented } from '../openapi.js';
import { z } from 'zod';
import { addWatcher, removeWatcher } from '../../domain/watchers.js';
import { ccNotAdded } from '../../domain/mailCc.js';
import { draftOfReadTicket } from '../../domain/tickets/drafts.js';
import { DependenciesOpen } from '../../domain/links.js';
import { DependsQuestion } from '../../views/tickets/links.js';
import { markTicketSeen } from '../../domain/tickets/reads.js';

const doc = documented('Tickets');

export function ticketRoutes() {
  const app = new Hono<AppEnv>();

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
