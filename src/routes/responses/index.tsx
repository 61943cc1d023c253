import { type Context, Hono } from 'hono';
import { type Actor, isAdmin } from '../../domain/actor.js';
import { STATUSES } from '../../domain/lifecycle.js';
import { lookups } from '../../domain/lookups.js';
import {
  canManage,
  createResponse,
  deleteResponse,
  getResponse,
  listResponses,
  renderResponse,
  updateResponse,
} from '../../domain/responses.js';
import { ResponsePage, ResponsesPage } from '../../views/responses.js';
import type { AppEnv } from '../context.js';
import { actorOf, dbOf, noContent, notifyOf, pathId, queryObject, readBody, respond, validate } from '../respond.js';
import { z } from 'zod';
import { documented } from '../openapi.js';
import {
  CreateResponseSchema,
  ListResponsesQuery,
  RenderedResponseSchema,
  RenderResponseQuery,
  ResponseSchema,
  UpdateResponseSchema,
} from './schemas.js';

const doc = documented('Canned responses');

/** What the pages show besides the responses: the choices and what the reader may do (decision 046). */
const pageProps = async (c: Context<AppEnv>, actor: Actor) => ({
  lookups: await lookups(dbOf(c), actor),
  statuses: STATUSES,
  mayShare: isAdmin(actor),
});

/**
 * SPEC C4: canned responses (decision 034). `GET /responses` (own + shared; `queue_id`, `q`),
 * `POST /responses`, `GET/PATCH/DELETE /responses/:id`, and `GET /responses/:id/render?ticket_id=N`:
 * the body rendered for that ticket, `{ id, name, body, set_status }`, for the reply box.
 */
export function responseRoutes() {
  const app = new Hono<AppEnv>();

  app.get(
    '/',
    doc({
      summary: 'List canned responses',
      description: 'Your own and the shared ones (staff).',
      query: ListResponsesQuery,
      ok: { 200: z.strictObject({ responses: z.array(ResponseSchema) }) },
      errors: [403],
    }),
    async (c) => {
      const { saved, ...filter } = validate(ListResponsesQuery, queryObject(c));
      const actor = actorOf(c);
      const responses = await listResponses(dbOf(c), actor, filter);
      return respond(
        c,
        { responses },
        {
          title: 'Canned responses',
          view: async () => (
            <ResponsesPage responses={responses} {...(await pageProps(c, actor))} saved={saved !== undefined} />
          ),
        },
      );
    },
  );

  app.post(
    '/',
    doc({
      summary: 'Create a canned response',
      description: "`shared` (administrators only) makes it every agent's.",
      body: CreateResponseSchema,
      ok: { 201: ResponseSchema },
      errors: [409],
    }),
    async (c) => {
      const r = await createResponse(dbOf(c), actorOf(c), await readBody(c, CreateResponseSchema));
      return respond(c, r, { status: 201, title: r.name, location: '/responses?saved' });
    },
  );

  app.get(
    '/:id/render',
    doc({
      summary: 'A canned response rendered for a ticket',
      query: RenderResponseQuery,
      ok: { 200: RenderedResponseSchema },
      errors: [403],
    }),
    async (c) => {
      const { ticket_id } = validate(RenderResponseQuery, queryObject(c));
      return respond(c, await renderResponse(dbOf(c), actorOf(c), pathId(c), ticket_id, notifyOf(c).publicUrl), {
        title: 'Canned response',
      });
    },
  );

  app.get('/:id', doc({ summary: 'A canned response', ok: { 200: ResponseSchema }, errors: [403] }), async (c) => {
    const actor = actorOf(c);
    const r = await getResponse(dbOf(c), actor, pathId(c));
    return respond(c, r, {
      title: r.name,
      view: async () => (
        <ResponsePage
          response={r}
          mayManage={canManage(actor, r)}
          {...(await pageProps(c, actor))}
          saved={c.req.query('saved') !== undefined}
        />
      ),
    });
  });

  app.patch(
    '/:id',
    doc({
      summary: 'Change a canned response',
      body: UpdateResponseSchema,
      ok: { 200: ResponseSchema },
      errors: [409],
    }),
    async (c) => {
      const id = pathId(c);
      const r = await updateResponse(dbOf(c), actorOf(c), id, await readBody(c, UpdateResponseSchema));
      return respond(c, r, { title: r.name, location: `/responses/${id}?saved` });
    },
  );

  app.delete('/:id', doc({ summary: 'Delete a canned response', ok: { 204: null } }), async (c) => {
    await deleteResponse(dbOf(c), actorOf(c), pathId(c));
    return noContent(c, '/responses?saved');
  });
  return app;
}
