import { z } from 'zod';
import { STATUS_NAME, STATUS_NAME_HINT } from '../../domain/lifecycle.js';
import { zBool, zId, zNullableId, zText } from '../../domain/validation.js';
import { zRowId, zTimestamp } from '../openapi.js';

// SPEC C4: canned responses (decision 034). One schema per request for JSON and forms alike.

/** A status the reply will set, or none ("" from a form's "no change" choice, or null). */
const setStatus = z.union([
  z.literal('').transform(() => null),
  z.null(),
  z.string({ error: STATUS_NAME_HINT }).regex(STATUS_NAME, STATUS_NAME_HINT),
]);

export const CreateResponseSchema = z.strictObject({
  name: zText(200, 1),
  body: z
    .string({ error: 'Required' })
    .max(100_000, 'At most 100000 characters')
    .refine((s) => s.trim() !== '', 'Must not be empty'),
  queue_id: zNullableId.optional(),
  set_status: setStatus.optional(),
  /** Shared with every agent (administrators only); otherwise the writer's own. */
  shared: zBool.optional(),
  /** The same choice as the field every response carries: null = shared, one's own id = one's own. */
  owner_id: zNullableId.optional(),
});
export const UpdateResponseSchema = CreateResponseSchema.partial();

export const ListResponsesQuery = z.strictObject({
  queue_id: zId.optional(),
  q: z.string().trim().max(200, 'At most 200 characters').optional(),
  saved: z.string().optional(),
});

export const RenderResponseQuery = z.strictObject({ ticket_id: zId });

/** A canned response as the API answers it; `owner_id` null: shared with every agent. */
export const ResponseSchema = z
  .strictObject({
    id: zRowId,
    name: z.string(),
    body: z.string(),
    queue_id: zRowId.nullable(),
    owner_id: zRowId.nullable().describe('null: shared'),
    set_status: z.string().nullable(),
    created_at: zTimestamp,
    updated_at: zTimestamp,
  })
  .meta({ id: 'CannedResponse' });
export const RenderedResponseSchema = z
  .strictObject({ id: zRowId, name: z.string(), body: z.string(), set_status: z.string().nullable() })
  .meta({ id: 'RenderedResponse', description: "A canned response's body rendered for one ticket" });
