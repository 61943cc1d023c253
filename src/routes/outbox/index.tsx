import { Hono } from 'hono';
import { z } from 'zod';
import { getOutboxEntry, listOutbox, retryOutboxEntry } from '../../domain/outbox.js';
import { zId, zInt } from '../../domain/validation.js';
import { OutboxPage } from '../../views/admin/mail.js';
import type { AppEnv } from '../context.js';
import { actorOf, adminScreen, dbOf, pathId, queryObject, respond, validate } from '../respond.js';

const ListQuery = z.strictObject({
  status: z.enum(['queued', 'sending', 'sent', 'failed']).optional(),
  ticket_id: zId.optional(),
  limit: zInt(1, 500).optional(),
  offset: zInt(0, 1_000_000_000).optional(),
});

export function outboxRoutes() {
  const app = new Hono<AppEnv>();
  app.get('/', async (c) => {
    const query = validate(ListQuery, queryObject(c));
    const list = await listOutbox(dbOf(c), actorOf(c), query);
    return respond(c, list, { title: 'Outbox', view: adminScreen(c, () => <OutboxPage outbox={list.outbox} total={list.total} limit={list.limit} offset={list.offset} query={query} />) });
  });
  app.get('/:id', (c) => respond(c, getOutboxEntry(dbOf(c), actorOf(c), pathId(c)), { title: 'Outbox entry' }));
  app.post('/:id/retry', (c) => {
    const id = pathId(c);
    return respond(c, retryOutboxEntry(dbOf(c), actorOf(c), id), { title: 'Outbox entry', location: '/outbox' });
  });
  return app;
}
