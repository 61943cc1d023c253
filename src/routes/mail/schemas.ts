import { z } from 'zod';
import { zInt } from '../../domain/validation.js';
import { zRowId, zTimestamp } from '../openapi.js';

const VERDICTS = ['created', 'appended', 'duplicate', 'ignored_auto', 'rejected', 'failed', 'spam'] as const;

/** POST /mailgate's options: query parameters of a raw message, fields of JSON or a form. */
export const MailOptionsSchema = z.object({
  queue: z.string().trim().min(1).max(254).optional(),
  action: z.enum(['correspond', 'comment'], { error: 'Expected correspond or comment' }).optional(),
});
export const MailJsonSchema = MailOptionsSchema.extend({
  message: z.string({ error: 'Required: the raw RFC 822 message' }).min(1, 'Must not be empty'),
});
export const IntakeListQuery = z.strictObject({
  verdict: z.enum(VERDICTS).optional(),
  limit: zInt(1, 500).optional(),
  offset: zInt(0, 1_000_000_000).optional(),
});

/** What the mail processor did with a message (SPEC B7). */
export const IntakeResultSchema = z
  .strictObject({
    intake_id: zRowId.nullable(),
    verdict: z.enum(VERDICTS),
    rule: z.string().nullable().describe('The rule that matched'),
    ticket_id: zRowId.nullable(),
    transaction_id: zRowId.nullable(),
    created: z.boolean(),
    user_created: z.boolean(),
    duplicate: z.boolean(),
  })
  .meta({ id: 'IntakeResult' });
export const IntakeEntrySchema = z
  .strictObject({
    id: zRowId,
    identity: z.string(),
    message_id: z.string().nullable(),
    source: z.string(),
    sender: z.string().nullable(),
    subject: z.string().nullable(),
    verdict: z.enum(VERDICTS),
    rule: z.string().nullable(),
    ticket_id: zRowId.nullable(),
    transaction_id: zRowId.nullable(),
    error: z.string().nullable(),
    ours: z
      .array(z.string())
      .describe(
        'The recipients taken as ours (queue aliases, our addresses, the address it was delivered to): never made a Cc',
      ),
    size: z.number().int().min(0),
    created_at: zTimestamp,
  })
  .meta({ id: 'IntakeEntry' });
export const IntakeListSchema = z
  .strictObject({
    intake: z.array(IntakeEntrySchema),
    total: z.number().int().min(0),
    limit: z.number().int().min(0),
    offset: z.number().int().min(0),
  })
  .meta({ id: 'IntakeList' });
export const IntakeEntryWithRawSchema = IntakeEntrySchema.extend({
  raw: z.string().describe('The message as received'),
}).meta({ id: 'IntakeEntryWithRaw' });
