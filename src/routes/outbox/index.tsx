import { Hono } from 'hono';
import { getOutboxEntry, listOutbox, retryOutboxEntry } from '../../domain/outbox.js';
import { OutboxPage } from '../../views/admin/mail.js';
import type { AppEnv } from '../context.js';
import { documented } from '../openapi.js';
import { OutboxEntrySchema, OutboxListQuery as ListQuery, OutboxListSchema } from './schemas.js';
import { actorOf, adminScreen, dbOf, pathId, queryObject, respond, validate } from '../respond.js';

const doc = documented('Outbox');

export function outboxRoutes() {
  const app = new Hono<AppEnv>();
  app.get(
    '/',
    doc({ summary: 'List notifications (admins)', query: ListQuery, ok: { 200: OutboxListSchema }, errors: [403] }),
    async (c) => {
      const query = validate(ListQuery, queryObject(c));
      const list = await listOutbox(dbOf(c), actorOf(c), query);
      return respond(c, list, {
        title: 'Outbox',
        view: adminScreen(c, () => (
          <OutboxPage outbox={list.outbox} total={list.total} limit={list.limit} offset={list.offset} query={query} />
        )),
      });
    },
  );
  app.get('/:id', doc({ summary: 'A notification (admins)', ok: { 200: OutboxEntrySchema }, errors: [403] }), (c) =>
    respond(c, getOutboxEntry(dbOf(c), actorOf(c), pathId(c)), { title: 'Outbox entry' }),
  );
  app.post(
    '/:id/retry',
    doc({ summary: 'Send a failed notification again (admins)', ok: { 200: OutboxEntrySchema }, errors: [409] }),
    (c) => {
      const id = pathId(c);
      return respond(c, retryOutboxEntry(dbOf(c), actorOf(c), id), { title: 'Outbox entry', location: '/outbox' });
    },
  );
  return app;
}
