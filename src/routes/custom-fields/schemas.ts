import { z } from 'zod';
import { CF_TYPES } from '../../domain/customFields.js';
import { zBool, zId, zList, zText } from '../../domain/validation.js';
import { zRowId, zTimestamp } from '../openapi.js';

const fields = {
  key: zText(64, 1),
  name: zText(100, 1),
  type: z.enum(CF_TYPES, { error: `Expected one of: ${CF_TYPES.join(', ')}` }),
  options: zList(zText(200, 1)).optional(),
  pattern: z.union([z.null(), zText(500)]).optional(),
  required: zBool.optional(),
  queue_ids: zList(zId).optional(),
};
export const CreateCustomFieldSchema = z.strictObject(fields);
export const UpdateCustomFieldSchema = CreateCustomFieldSchema.partial();
export const CustomFieldListQuery = z.strictObject({ queue_id: zId.optional() });

/** A custom field as the API answers it (SPEC B3). */
export const CustomFieldSchema = z
  .strictObject({
    id: zRowId,
    key: z.string(),
    name: z.string(),
    type: z.enum(CF_TYPES),
    options: z.array(z.string()),
    pattern: z.string().nullable(),
    required: z.boolean(),
    queue_ids: z.array(zRowId).describe('Empty: every queue'),
    created_at: zTimestamp,
    updated_at: zTimestamp,
  })
  .meta({ id: 'CustomField' });
