import { z } from 'zod';
import { zInt, zJsonText, zList, zId, zNullableId, zText } from '../../domain/validation.js';
import { zRowId, zTimestamp } from '../openapi.js';

/** A form's empty field is "not given" (an optional number left blank). */
const blankIsUnset = <T extends z.ZodType>(t: T) => z.preprocess((v) => (v === '' ? undefined : v), t.optional());
/** Minutes of a target, or null (no such clock); a form's empty field is null. */
const zTarget = z
  .preprocess((v) => (v === '' ? null : v), z.union([z.null(), zInt(1, 525_600)]))
  .describe('Business minutes; null: no such clock');

const MatchSchema = z.strictObject({
  queue_ids: zList(zId).optional().describe('Tickets in one of these queues'),
  priority_min: blankIsUnset(zInt(0, 100)),
  priority_max: blankIsUnset(zInt(0, 100)),
  cf: zJsonText(
    z.record(z.string().max(64), z.union([z.string().max(4000), z.number()]), {
      error: 'must be a JSON object of custom field keys and values',
    }),
  )
    .optional()
    .describe('Custom field key → value; each must be equal'),
  tags: zList(zText(64, 1)).optional().describe('SPEC D3; kept, not matched yet'),
});

export const CreateSlaPolicySchema = z.strictObject({
  name: zText(100, 1),
  position: blankIsUnset(zInt(-1_000_000, 1_000_000)).describe('Lower first; default: after the others'),
  match: MatchSchema.optional().describe('Empty: every ticket'),
  calendar_id: zNullableId.optional().describe('null: around the clock'),
  first_response_minutes: zTarget.optional(),
  next_response_minutes: zTarget.optional(),
  resolution_minutes: zTarget.optional(),
  warn_before_minutes: blankIsUnset(zInt(0, 525_600)).describe(
    'The SLA transaction `warning` comes this long before a due time',
  ),
});
export const UpdateSlaPolicySchema = CreateSlaPolicySchema.partial();

const target = z.number().int().nullable();
/** An SLA policy as the API answers it (SPEC D2). */
export const SlaPolicySchema = z
  .strictObject({
    id: zRowId,
    name: z.string(),
    position: z.number().int(),
    match: z
      .strictObject({
        queue_ids: z.array(zRowId).optional(),
        priority_min: z.number().int().optional(),
        priority_max: z.number().int().optional(),
        cf: z.record(z.string(), z.union([z.string(), z.number()])).optional(),
        tags: z.array(z.string()).optional(),
      })
      .describe('Empty: every ticket'),
    calendar_id: zRowId.nullable().describe('null: around the clock'),
    first_response_minutes: target,
    next_response_minutes: target,
    resolution_minutes: target,
    warn_before_minutes: z.number().int(),
    created_at: zTimestamp,
    updated_at: zTimestamp,
  })
  .meta({ id: 'SlaPolicy' });
