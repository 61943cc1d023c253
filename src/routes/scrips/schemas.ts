import { z } from 'zod';
import { ACTIONS, CONDITIONS } from '../../scrips/kinds.js';
import { zBool, zInt, zJsonObject, zNullableId, zText } from '../../domain/validation.js';
import { zRowId, zTimestamp } from '../openapi.js';

export const CreateScripSchema = z.strictObject({
  key: zText(64, 1),
  description: zText(2000).optional(),
  condition: z.enum(CONDITIONS, { error: `Expected one of: ${CONDITIONS.join(', ')}` }),
  action: z.enum(ACTIONS, { error: `Expected one of: ${ACTIONS.join(', ')}` }),
  template_id: zNullableId.optional(),
  queue_id: zNullableId.optional(),
  enabled: zBool.optional(),
  sort_order: zInt(-1_000_000, 1_000_000).optional(),
  config: zJsonObject.optional(),
});
export const UpdateScripSchema = CreateScripSchema.partial();

/** A scrip as the API answers it (SPEC B3, B6). */
export const ScripSchema = z
  .strictObject({
    id: zRowId,
    key: z.string(),
    description: z.string(),
    condition: z.enum(CONDITIONS),
    action: z.enum(ACTIONS),
    template_id: zRowId.nullable(),
    queue_id: zRowId.nullable().describe('null: every queue'),
    enabled: z.boolean(),
    sort_order: z.number().int(),
    config: z.record(z.string(), z.unknown()).describe("The action's arguments (`url`, `status`)"),
    created_at: zTimestamp,
    updated_at: zTimestamp,
  })
  .meta({ id: 'Scrip' });

/** SPEC D2: the tickets an on_idle scrip would fire on now. */
export const ScripPreviewSchema = z
  .strictObject({
    scrip_id: zRowId,
    enabled: z.boolean(),
    now: zTimestamp.describe('The time the preview was made at'),
    count: z.number().int().min(0).describe('How many tickets it would fire on'),
    tickets: z
      .array(
        z.strictObject({
          id: zRowId,
          subject: z.string(),
          status: z.string(),
          queue_id: zRowId,
          idle_since: zTimestamp.describe('Its last public message or status change'),
          idle_due_at: zTimestamp.describe("When the scrip's hours after idle_since ended"),
        }),
      )
      .describe('The 100 idle longest, oldest first'),
  })
  .meta({ id: 'ScripPreview' });
