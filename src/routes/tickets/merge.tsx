import { Hono } from 'hono';
import { mergeCandidates, mergePreview, mergeTickets } from '../../domain/merge/merge.js';
import { unmergeTicket } from '../../domain/merge/unmerge.js';
import { MergeConfirmPage, MergeSearchPage, SpamConfirmPage } from '../../views/tickets/merge.js';
import { markSpam, spamQuestion } from '../../domain/spam.js';
import { invalid } from '../../domain/errors.js';
import type { AppEnv } from '../context.js';
import { documented } from '../openapi.js';
import { actorOf, dbOf, notifyOf, pathId, queryObject, readBody, respond, validate, wantsHtml } from '../respond.js';
import {
  MergePreviewSchema,
  MergeQuerySchema,
  MergeResultSchema,
  MergeSchema,
  SpamQuestionSchema,
  SpamResultSchema,
  UnmergeSchema,
} from './mergeSchemas.js';

// SPEC D3 merge, unmerge and spam (docs/decisions/076, 077). The domain owns the rules and the
// unit of work; these routes read one schema each and answer JSON or the page.

const doc = documented('Tickets');

export function mergeRoutes() {
  const app = new Hono<AppEnv>();

  app.get(
    '/:id/merge',
    doc({
      summary: 'What a merge would move',
      description: 'With `into`: the figures of a merge of this ticket into that one (nothing changes).',
      query: MergeQuerySchema,
      ok: { 200: MergePreviewSchema },
      errors: [403, 404, 409, 422],
    }),
    async (c) => {
      const id = pathId(c);
      const q = validate(MergeQuerySchema, queryObject(c));
      if (q.into === undefined) {
        // The page: find the ticket to merge into (JSON asks with `into`).
        if (!wantsHtml(c)) throw validationInto();
        const found = await mergeCandidates(dbOf(c), actorOf(c), id, q.q ?? '');
        return c.render(<MergeSearchPage ticket={found.ticket} q={q.q ?? ''} candidates={found.candidates} />, {
          title: `Merge #${id}`,
        });
      }
      const preview = await mergePreview(dbOf(c), actorOf(c), id, q.into);
      return respond(c, preview, {
        title: `Merge #${id} into #${q.into}?`,
        view: () => <MergeConfirmPage m={preview} />,
      });
    },
  );

  app.post(
    '/:id/merge',
    doc({
      summary: 'Merge a ticket into another (staff)',
      description:
        'Moves every history entry (keeping its date, with `merged_from`), file, watcher, tag and link of this ticket into `into`, and copies the custom values `into` lacks; this ticket becomes a tombstone (`GET` answers `{ ticket: { id, merged_into } }`). 409 when either ticket is merged already.',
      body: MergeSchema,
      ok: { 200: MergeResultSchema },
      errors: [403, 404, 409, 422],
    }),
    async (c) => {
      const id = pathId(c);
      const { into } = await readBody(c, MergeSchema);
      const result = await mergeTickets(dbOf(c), actorOf(c), id, into, notifyOf(c));
      return respond(c, result, { title: `#${into}`, location: `/tickets/${into}` });
    },
  );

  app.post(
    '/:id/unmerge',
    doc({
      summary: 'Undo a merge into this ticket (staff, within 30 days)',
      description:
        'Gives `ticket_id` back its own entries (and the mail that came through its thread since), watchers, tags, links and status, with an `Unmerge` entry on both tickets. 409 after 30 days.',
      body: UnmergeSchema,
      ok: { 200: MergeResultSchema },
      errors: [403, 404, 409, 422],
    }),
    async (c) => {
      const into = pathId(c);
      const { ticket_id } = await readBody(c, UnmergeSchema);
      const result = await unmergeTicket(dbOf(c), actorOf(c), into, ticket_id, notifyOf(c));
      return respond(c, result, { title: `#${ticket_id}`, location: `/tickets/${ticket_id}` });
    },
  );

  app.get(
    '/:id/spam',
    doc({
      summary: 'What marking a ticket as spam would do',
      description: 'The ticket and the requester a Spam action would block (`staff`: cannot be blocked).',
      ok: { 200: SpamQuestionSchema },
      errors: [403, 404, 409],
    }),
    async (c) => {
      const id = pathId(c);
      const question = await spamQuestion(dbOf(c), actorOf(c), id);
      return respond(c, question, { title: `Mark #${id} as spam?`, view: () => <SpamConfirmPage q={question} /> });
    },
  );

  app.post(
    '/:id/spam',
    doc({
      summary: 'Mark a ticket as spam (staff)',
      description:
        "Deletes the ticket (status `deleted`, or its lifecycle's first inactive status) and blocks its requester: their mail is refused from then on. 422 when the requester is staff.",
      ok: { 200: SpamResultSchema },
      errors: [403, 404, 409, 422],
    }),
    async (c) => {
      const id = pathId(c);
      const result = await markSpam(dbOf(c), actorOf(c), id, notifyOf(c));
      return respond(c, result, { title: `#${id}`, location: `/tickets/${id}` });
    },
  );
  return app;
}

const validationInto = () => invalid('into', 'Required: the ticket to merge into');
