import { Hono } from 'hono';
import { z } from 'zod';
import {
  createCustomField,
  deleteCustomField,
  getCustomField,
  listCustomFields,
  updateCustomField,
} from '../../domain/customFields.js';
import { lookups } from '../../domain/lookups.js';
import { CustomFieldPage, CustomFieldsPage } from '../../views/admin/customFields.js';
import type { AppEnv } from '../context.js';
import { documented } from '../openapi.js';
import {
  CreateCustomFieldSchema as CreateSchema,
  CustomFieldListQuery as ListQuery,
  CustomFieldSchema,
  UpdateCustomFieldSchema as UpdateSchema,
} from './schemas.js';
import {
  actorOf,
  adminOf,
  adminScreen,
  dbOf,
  noContent,
  pathId,
  queryObject,
  readBody,
  respond,
  validate,
} from '../respond.js';

const doc = documented('Custom fields');

export function customFieldRoutes() {
  const app = new Hono<AppEnv>();
  app.get(
    '/',
    doc({
      summary: 'List custom fields',
      query: ListQuery,
      ok: { 200: z.strictObject({ custom_fields: z.array(CustomFieldSchema) }) },
      errors: [403],
    }),
    async (c) => {
      const { queue_id } = validate(ListQuery, queryObject(c));
      const fields = await listCustomFields(dbOf(c), actorOf(c), queue_id);
      return respond(
        c,
        { custom_fields: fields },
        {
          title: 'Custom fields',
          view: adminScreen(c, async () => (
            <CustomFieldsPage fields={fields} lookups={await lookups(dbOf(c), actorOf(c))} />
          )),
        },
      );
    },
  );
  app.post(
    '/',
    doc({
      summary: 'Create a custom field (admins)',
      body: CreateSchema,
      ok: { 201: CustomFieldSchema },
      errors: [409],
    }),
    async (c) => {
      const actor = adminOf(c);
      const field = await createCustomField(dbOf(c), actor, await readBody(c, CreateSchema));
      return respond(c, field, { status: 201, title: field.name, location: `/custom-fields/${field.id}?saved` });
    },
  );
  app.get('/:id', doc({ summary: 'A custom field', ok: { 200: CustomFieldSchema }, errors: [403] }), async (c) => {
    const field = await getCustomField(dbOf(c), actorOf(c), pathId(c));
    return respond(c, field, {
      title: field.name,
      view: adminScreen(c, async () => <CustomFieldPage field={field} lookups={await lookups(dbOf(c), actorOf(c))} />),
    });
  });
  app.patch(
    '/:id',
    doc({
      summary: 'Change a custom field (admins)',
      body: UpdateSchema,
      ok: { 200: CustomFieldSchema },
      errors: [409],
    }),
    async (c) => {
      const actor = adminOf(c);
      const id = pathId(c);
      return respond(c, updateCustomField(dbOf(c), actor, id, await readBody(c, UpdateSchema)), {
        title: 'Custom field',
        location: `/custom-fields/${id}?saved`,
      });
    },
  );
  app.delete('/:id', doc({ summary: 'Delete a custom field (admins)', ok: { 204: null } }), async (c) => {
    await deleteCustomField(dbOf(c), actorOf(c), pathId(c));
    return noContent(c, '/custom-fields');
  });
  return app;
}
