import { Hono } from 'hono';
import { clearDraft, getDraft, saveDraft } from '../../domain/tickets/drafts.js';
import { DraftWords } from '../../views/tickets/drafts.js';
import type { AppEnv } from '../context.js';
import { documented } from '../openapi.js';
import { actorOf, dbOf, noContent, pathId, readBody, respond } from '../respond.js';
import { DraftAnswerSchema, DraftInputSchema } from './schemas.js';

// SPEC D6 drafts (docs/decisions/054): GET/PUT/DELETE /tickets/:id/draft, the caller's own draft
// (staff only). The reply box saves with PUT (htmx: the answer is the words of its status line).

const doc = documented('Tickets');

export function draftRoutes() {
  const app = new Hono<AppEnv>();

  app.get(
    '/:id/draft',
    doc({ summary: 'Your draft of a reply or note', ok: { 200: DraftAnswerSchema }, errors: [403, 404] }),
    async (c) => {
      const id = pathId(c);
      const draft = await getDraft(dbOf(c), actorOf(c), id);
      return respond(c, { draft }, { title: `#${id} draft` });
    },
  );

  app.put(
    '/:id/draft',
    doc({
      summary: 'Save your draft of a reply or note',
      description:
        'Replaces your draft of the ticket; empty text removes it (`draft: null`). Saving a draft writes no history entry and sends nothing. Sending a reply or note on the ticket removes your draft in the same unit of work.',
      body: DraftInputSchema,
      ok: { 200: DraftAnswerSchema },
      errors: [403, 404],
    }),
    async (c) => {
      const id = pathId(c);
      const input = await readBody(c, DraftInputSchema);
      const draft = await saveDraft(dbOf(c), actorOf(c), id, input);
      return respond(
        c,
        { draft },
        { title: `#${id} draft`, location: `/tickets/${id}`, view: () => <DraftWords draft={draft} /> },
      );
    },
  );

  app.delete('/:id/draft', doc({ summary: 'Discard your draft', ok: { 204: null }, errors: [403, 404] }), async (c) => {
    const id = pathId(c);
    await clearDraft(dbOf(c), actorOf(c), id);
    return noContent(c, `/tickets/${id}`);
  });
  return app;
}
