import { type Context, Hono } from 'hono';
import { z } from 'zod';
import { addLink, removeLink } from '../../domain/links.js';
import { linkCandidates } from '../../domain/linksPanel.js';
import { lookups } from '../../domain/lookups.js';
import { planSplit, splitTicket } from '../../domain/split.js';
import type { Actor } from '../../domain/actor.js';
import { ticketsJson } from '../../domain/tickets/serialize.js';
import { LinkCandidates, LinksPanel, SplitConfirm } from '../../views/tickets/links.js';
import { History } from '../../views/tickets/show.js';
import type { AppEnv } from '../context.js';
import { documented } from '../openapi.js';
import { actorOf, dbOf, isHtmx, notifyOf, pathId, readBody, respond, validate, wantsHtml } from '../respond.js';
import {
  AddLinkSchema,
  LinkCandidatesSchema,
  LinkNameSchema,
  LinkSearchQuerySchema,
  SplitSchema,
} from './linksSchemas.js';
import { pageProps } from './props.js';
import { TicketChangeSchema } from './schemas.js';

// SPEC D3 links and split (docs/decisions/075). Each answers JSON from the domain's result, or
// for htmx the Links panel with the history out of band; a plain form is sent back to the ticket.

type C = Context<AppEnv>;
const doc = documented('Tickets');

/** The Links panel (the target) and the history, which has the new entry. */
async function linksChanged(c: C, actor: Actor, id: number) {
  const p = await pageProps(c, actor, id);
  return (
    <>
      <LinksPanel p={p} />
      <History p={p} oob />
    </>
  );
}

const SplitPlanSchema = z
  .strictObject({
    message: z.strictObject({
      id: z.number().int(),
      type: z.string(),
      creator_id: z.number().int().nullable(),
      body: z.string(),
      created_at: z.string(),
    }),
    files: z.array(z.strictObject({ filename: z.string(), content_type: z.string(), size: z.number().int() })),
    requester_id: z.number().int().nullable(),
    queue_id: z.number().int(),
    subject: z.string(),
  })
  .meta({ id: 'SplitPlan' });

export function linkRoutes() {
  const app = new Hono<AppEnv>();

  app.post(
    '/:id/links',
    doc({
      summary: 'Link another ticket',
      description:
        'An `AddLink` entry on both tickets (the other sees the reverse name). 200 and nothing written when the link is there already; 422 for the ticket itself, a missing ticket, or a cycle of depends_on or parent_of.',
      body: AddLinkSchema,
      ok: { 201: TicketChangeSchema, 200: TicketChangeSchema },
      errors: [403, 404, 409],
    }),
    async (c) => {
      const id = pathId(c);
      const actor = actorOf(c);
      const input = await readBody(c, AddLinkSchema);
      const r = await addLink(dbOf(c), actor, id, input, notifyOf(c));
      const [ticket] = await ticketsJson(dbOf(c), [r.ticket]);
      return respond(
        c,
        { ticket, scrip_results: r.scrip_results },
        {
          status: r.changed ? 201 : 200,
          title: `#${id}`,
          location: `/tickets/${id}`,
          view: () => linksChanged(c, actor, id),
        },
      );
    },
  );

  app.delete(
    '/:id/links/:type/:ticketId',
    doc({
      summary: 'Remove a link',
      description:
        '`type` by either name (`depends_on` from one side is `depended_on_by` from the other). A `DelLink` entry on both tickets.',
      path: { type: LinkNameSchema },
      ok: { 200: TicketChangeSchema },
      errors: [403, 404, 422],
    }),
    async (c) => {
      const id = pathId(c);
      const actor = actorOf(c);
      const name = validate(LinkNameSchema, c.req.param('type'), 'type');
      const other = pathId(c, 'ticketId');
      const r = await removeLink(dbOf(c), actor, id, name, other, notifyOf(c));
      const [ticket] = await ticketsJson(dbOf(c), [r.ticket]);
      return respond(
        c,
        { ticket, scrip_results: r.scrip_results },
        { title: `#${id}`, location: `/tickets/${id}`, view: () => linksChanged(c, actor, id) },
      );
    },
  );

  app.get(
    '/:id/link-search',
    doc({
      summary: 'Tickets to link',
      description:
        'At most 10 other tickets matching `q` as the list finds them (a number, or words of a subject or message). The Links form sends its box as `ticket_id`.',
      query: LinkSearchQuerySchema,
      ok: { 200: LinkCandidatesSchema },
      errors: [403],
    }),
    async (c) => {
      const id = pathId(c);
      const { q, ticket_id } = validate(LinkSearchQuerySchema, c.req.query());
      const found = await linkCandidates(dbOf(c), actorOf(c), id, q || ticket_id || '');
      return respond(
        c,
        { tickets: found },
        { title: 'Tickets to link', view: () => <LinkCandidates tickets={found} /> },
      );
    },
  );

  app.get(
    '/:id/split',
    doc({
      summary: 'What a split would make',
      description: 'The message, its files and the new ticket’s requester, queue and subject; nothing is written.',
      query: SplitSchema,
      ok: { 200: SplitPlanSchema },
      errors: [403, 404],
    }),
    async (c) => {
      const id = pathId(c);
      const actor = actorOf(c);
      const input = validate(SplitSchema, c.req.query());
      const plan = await planSplit(dbOf(c), actor, id, input);
      return respond(c, plan, {
        title: `Split #${id}`,
        view: async () => (
          <SplitConfirm
            ticketId={id}
            plan={plan}
            lookups={await lookups(dbOf(c), actor, [plan.requester_id, plan.message.creator_id])}
          />
        ),
      });
    },
  );

  app.post(
    '/:id/split',
    doc({
      summary: 'Split a message into a new ticket',
      description:
        "A new ticket in the same queue whose Create carries the message's text and a copy of its files, whose requester is the message's author (staff: this ticket's requester), and which refers_to this one.",
      body: SplitSchema,
      ok: { 201: TicketChangeSchema },
      errors: [403, 404, 409],
    }),
    async (c) => {
      const id = pathId(c);
      const input = await readBody(c, SplitSchema);
      const result = await splitTicket(dbOf(c), actorOf(c), id, input, notifyOf(c));
      const to = `/tickets/${result.ticket.id}`;
      if (wantsHtml(c) && isHtmx(c)) {
        c.header('HX-Redirect', to);
        return c.body('', 201);
      }
      return respond(c, result, { status: 201, title: `#${result.ticket.id}`, location: to });
    },
  );

  return app;
}
