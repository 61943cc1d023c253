import { Hono } from 'hono';
import { listLifecycles } from '../../domain/lifecycles/admin.js';
import { z } from 'zod';
import { createQueue, deleteQueue, getQueue, listQueues, updateQueue } from '../../domain/queues.js';
import { lookups } from '../../domain/lookups.js';
import { QueuePage, QueuesPage } from '../../views/admin/queues.js';
import type { AppEnv } from '../context.js';
import { documented } from '../openapi.js';
import { CreateQueueSchema, QueueSchema, UpdateQueueSchema } from './schemas.js';
import { actorOf, adminOf, adminScreen, dbOf, noContent, notifyOf, pathId, readBody, respond } from '../respond.js';

const doc = documented('Queues');

export function queueRoutes() {
  const app = new Hono<AppEnv>();
  app.get(
    '/',
    doc({ summary: 'List queues', ok: { 200: z.strictObject({ queues: z.array(QueueSchema) }) } }),
    async (c) => {
      const queues = await listQueues(dbOf(c), actorOf(c));
      return respond(
        c,
        { queues },
        {
          title: 'Queues',
          view: adminScreen(c, async () => <QueuesPage queues={queues} lookups={await lookups(dbOf(c), actorOf(c))} />),
        },
      );
    },
  );
  app.post(
    '/',
    doc({ summary: 'Create a queue (admins)', body: CreateQueueSchema, ok: { 201: QueueSchema }, errors: [409] }),
    async (c) => {
      const actor = adminOf(c);
      const queue = await createQueue(dbOf(c), actor, await readBody(c, CreateQueueSchema), notifyOf(c));
      return respond(c, queue, { status: 201, title: queue.name, location: `/queues/${queue.id}?saved` });
    },
  );
  app.get('/:id', doc({ summary: 'A queue', ok: { 200: QueueSchema } }), async (c) => {
    const queue = await getQueue(dbOf(c), actorOf(c), pathId(c));
    const people = [...(queue.cc ?? []), ...(queue.admin_cc ?? [])];
    return respond(c, queue, {
      title: queue.name,
      view: adminScreen(c, async () => (
        <QueuePage
          queue={queue}
          lookups={await lookups(dbOf(c), actorOf(c), people)}
          lifecycles={await listLifecycles(dbOf(c), actorOf(c))}
        />
      )),
    });
  });
  app.patch(
    '/:id',
    doc({ summary: 'Change a queue (admins)', body: UpdateQueueSchema, ok: { 200: QueueSchema }, errors: [409] }),
    async (c) => {
      const actor = adminOf(c);
      const id = pathId(c);
      return respond(c, updateQueue(dbOf(c), actor, id, await readBody(c, UpdateQueueSchema), notifyOf(c)), {
        title: 'Queue',
        location: `/queues/${id}?saved`,
      });
    },
  );
  app.delete(
    '/:id',
    doc({
      summary: 'Delete a queue (admins)',
      description: 'Refused (409) while tickets are in it.',
      ok: { 204: null },
      errors: [409],
    }),
    async (c) => {
      await deleteQueue(dbOf(c), actorOf(c), pathId(c));
      return noContent(c, '/queues');
    },
  );
  return app;
}
