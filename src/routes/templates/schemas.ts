import { z } from 'zod';
import { zId, zNullableId, zText } from '../../domain/validation.js';
import { zRowId, zTimestamp } from '../openapi.js';

export const CreateTemplateSchema = z.strictObject({
  name: zText(100, 1),
  description: zText(2000).optional(),
  subject: z.string().max(1000).optional(),
  body: z.string().max(100_000).optional(),
  queue_id: zNullableId.optional(),
});
export const UpdateTemplateSchema = CreateTemplateSchema.partial();
export const PreviewTemplateSchema = z.strictObject({
  subject: z.string().max(1000).default(''),
  body: z.string().max(100_000).default(''),
  ticket_id: z.union([z.literal('').transform(() => undefined), zId]).optional(),
});

/** A template as the API answers it (SPEC B3): Liquid `subject` and `body`. */
export const TemplateSchema = z
  .strictObject({
    id: zRowId,
    name: z.string(),
    description: z.string(),
    subject: z.string(),
    body: z.string(),
    queue_id: zRowId.nullable().describe('null: every queue'),
    created_at: zTimestamp,
    updated_at: zTimestamp,
  })
  .meta({ id: 'Template' });
export const TemplatePreviewSchema = z
  .strictObject({ subject: z.string(), body: z.string() })
  .meta({ id: 'TemplatePreview' });
