import { z } from 'zod';
import { zId, zInt } from '../../domain/validation.js';
import { zRowId, zTimestamp } from '../openapi.js';

const STATUSES = ['queued', 'sending', 'sent', 'failed'] as const;
export const OutboxListQuery = z.strictObject({
  status: z.enum(STATUSES).optional(),
  ticket_id: zId.optional(),
  limit: zInt(1, 500).optional(),
  offset: zInt(0, 1_000_000_000).optional(),
});

const mailbox = z.strictObject({ name: z.string(), address: z.string() });
/** A notification and its delivery state (SPEC B6): one e-mail to one recipient, or one webhook call. */
export const OutboxEntrySchema = z
  .strictObject({
    id: zRowId,
    kind: z.enum(['email', 'webhook']),
    ticket_id: zRowId.nullable(),
    transaction_id: zRowId.nullable(),
    scrip_id: zRowId.nullable(),
    recipient: z.string().describe('The envelope address of this copy, or the webhook URL'),
    subject: z.string().nullable(),
    body: z.string(),
    headers: z.record(z.string(), z.string()),
    message_id: z.string().nullable(),
    audience: z.enum(['customer', 'staff']).nullable(),
    status: z.enum(STATUSES),
    attempts: z.number().int().min(0),
    last_error: z.string().nullable(),
    next_attempt_at: zTimestamp,
    created_at: zTimestamp,
    sent_at: zTimestamp.nullable(),
    claimed_by: z.string().nullable().describe('The delivery worker whose attempt a `sending` row is'),
    claimed_until: zTimestamp
      .nullable()
      .describe(
        "The end of that worker's claim (it renews it while it works): after it, any worker may take the row over",
      ),
    to: z.array(mailbox),
    cc: z.array(mailbox),
    attachment_ids: z.array(zRowId),
  })
  .meta({ id: 'OutboxEntry' });
export const OutboxListSchema = z
  .strictObject({
    outbox: z.array(OutboxEntrySchema),
    total: z.number().int().min(0),
    limit: z.number().int().min(0),
    offset: z.number().int().min(0),
  })
  .meta({ id: 'OutboxList' });
