import { Hono } from 'hono';
import { z } from 'zod';
import { createQueue, deleteQueue, getQueue, listQueues, updateQueue } from '../../domain/queues.js';
import { lookups } from '../../domain/lookups.js';
import { zBool, zInt, zList, zNullableId, zText } from '../../domain/validation.js';
import { MAIL_CC_PER_MESSAGE, MAIL_CC_PER_TICKET } from '../../domain/mailCc.js';
import { QueuePage, QueuesPage } from '../../views/admin/config.js';
import type { AppEnv } from '../context.js';
import { actorOf, adminOf, adminScreen, dbOf, noContent, notifyOf, pathId, readBody, respond } from '../respond.js';

const mailAlias = z.union([
  z.literal('').transform(() => null), z.null(), z.string().trim().max(254).pipe(z.email('Expected an e-mail address')),
]);
/**
 * People by id (7) or address (ann@example.com), checked by the domain. A form sends them
 * comma-separated, where a stray comma ("ann@example.com, ") names nobody.
 */
const personRef = z.union([z.number().int().positive(), z.string().trim().min(1).max(320)], { error: 'Expected a user id or an e-mail address' });
const people = z.preprocess((v) => (typeof v === 'string' ? v.split(',').map((x) => x.trim()).filter((x) => x !== '') : v), zList(personRef))
  .pipe(z.array(personRef).max(100, 'At most 100 people'));
const CreateQueueSchema = z.strictObject({
  name: zText(100, 1), description: zText(2000).optional(), mail_alias: mailAlias.optional(), team_id: zNullableId.optional(),
  keep_mail_cc: zBool.optional(),
  // SPEC D0: the Cc bounds may be lowered, never raised.
  mail_cc_per_message: zInt(1, MAIL_CC_PER_MESSAGE).optional(), mail_cc_per_ticket: zInt(1, MAIL_CC_PER_TICKET).optional(),
  signature: z.string().max(4000, 'At most 4000 characters').optional(),
  cc: people.optional(), admin_cc: people.optional(),
});
const UpdateQueueSchema = CreateQueueSchema.partial();

export function queueRoutes() {
  const app = new Hono<AppEnv>();
  app.get('/', async (c) => {
    const queues = await listQueues(dbOf(c), actorOf(c));
    return respond(c, { queues }, { title: 'Queues', view: adminScreen(c, async () => <QueuesPage queues={queues} lookups={await lookups(dbOf(c), actorOf(c))} />) });
  });
  app.post('/', async (c) => {
    const actor = adminOf(c);
    const queue = await createQueue(dbOf(c), actor, await readBody(c, CreateQueueSchema), notifyOf(c));
    return respond(c, queue, { status: 201, title: queue.name, location: `/queues/${queue.id}?saved` });
  });
  app.get('/:id', async (c) => {
    const queue = await getQueue(dbOf(c), actorOf(c), pathId(c));
    const people = [...queue.cc ?? [], ...queue.admin_cc ?? []];
    return respond(c, queue, { title: queue.name, view: adminScreen(c, async () => <QueuePage queue={queue} lookups={await lookups(dbOf(c), actorOf(c), people)} />) });
  });
  app.patch('/:id', async (c) => {
    const actor = adminOf(c);
    const id = pathId(c);
    return respond(c, updateQueue(dbOf(c), actor, id, await readBody(c, UpdateQueueSchema), notifyOf(c)), { title: 'Queue', location: `/queues/${id}?saved` });
  });
  app.delete('/:id', async (c) => {
    await deleteQueue(dbOf(c), actorOf(c), pathId(c));
    return noContent(c, '/queues');
  });
  return app;
}
