import { Hono } from 'hono';
import { z } from 'zod';
import { CF_TYPES, createCustomField, deleteCustomField, getCustomField, listCustomFields, updateCustomField } from '../../domain/customFields.js';
import { lookups } from '../../domain/lookups.js';
import { zBool, zId, zList, zText } from '../../domain/validation.js';
import { CustomFieldPage, CustomFieldsPage } from '../../views/admin/config.js';
import type { AppEnv } from '../context.js';
import { actorOf, adminOf, adminScreen, dbOf, noContent, pathId, queryObject, readBody, respond, validate } from '../respond.js';

const fields = {
  key: zText(64, 1),
  name: zText(100, 1),
  type: z.enum(CF_TYPES, { error: `Expected one of: ${CF_TYPES.join(', ')}` }),
  options: zList(zText(200, 1)).optional(),
  pattern: z.union([z.null(), zText(500)]).optional(),
  required: zBool.optional(),
  queue_ids: zList(zId).optional(),
};
const CreateSchema = z.strictObject(fields);
const UpdateSchema = CreateSchema.partial();
const ListQuery = z.strictObject({ queue_id: zId.optional() });

export function customFieldRoutes() {
  const app = new Hono<AppEnv>();
  app.get('/', async (c) => {
    const { queue_id } = validate(ListQuery, queryObject(c));
    const fields = await listCustomFields(dbOf(c), actorOf(c), queue_id);
    return respond(c, { custom_fields: fields }, { title: 'Custom fields', view: adminScreen(c, async () => <CustomFieldsPage fields={fields} lookups={await lookups(dbOf(c), actorOf(c))} />) });
  });
  app.post('/', async (c) => {
    const actor = adminOf(c);
    const field = await createCustomField(dbOf(c), actor, await readBody(c, CreateSchema));
    return respond(c, field, { status: 201, title: field.name, location: `/custom-fields/${field.id}?saved` });
  });
  app.get('/:id', async (c) => {
    const field = await getCustomField(dbOf(c), actorOf(c), pathId(c));
    return respond(c, field, { title: field.name, view: adminScreen(c, async () => <CustomFieldPage field={field} lookups={await lookups(dbOf(c), actorOf(c))} />) });
  });
  app.patch('/:id', async (c) => {
    const actor = adminOf(c);
    const id = pathId(c);
    return respond(c, updateCustomField(dbOf(c), actor, id, await readBody(c, UpdateSchema)), { title: 'Custom field', location: `/custom-fields/${id}?saved` });
  });
  app.delete('/:id', async (c) => {
    await deleteCustomField(dbOf(c), actorOf(c), pathId(c));
    return noContent(c, '/custom-fields');
  });
  return app;
}
