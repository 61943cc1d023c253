import { z } from 'zod';
import { MAX_REPLY_FILES, PUBLIC_TYPES } from '../../domain/portal.js';
import { zId, zText } from '../../domain/validation.js';
import { zRowId, zTimestamp } from '../openapi.js';
import { AttachmentSchema } from '../tickets/schemas.js';

const file = z.strictObject({
  filename: zText(255, 1),
  content_type: z.string().trim().max(255).optional(),
  content_base64: z.string().regex(/^[A-Za-z0-9+/\s]*={0,2}\s*$/, 'Expected base64'),
});
/** JSON `{ body, attachments? }` (C4's attachment shape) or a form with `body` and files in `attachments`. */
export const ReplySchema = z.strictObject({
  body: z.string().max(100_000, 'At most 100000 characters').optional(),
  attachments: z.array(file).max(MAX_REPLY_FILES, `At most ${MAX_REPLY_FILES} files`).optional(),
});

/** A ticket as its customer sees it: no owner, queue, team or internal field. */
export const PortalTicketSchema = z
  .strictObject({ id: zRowId, subject: z.string(), status: z.string(), created_at: zTimestamp, updated_at: zTimestamp })
  .meta({ id: 'PortalTicket' });
export const PortalTransactionSchema = z
  .strictObject({
    id: zRowId,
    type: z.enum(PUBLIC_TYPES),
    author: z
      .strictObject({ name: z.string(), staff: z.boolean() })
      .describe('Staff by name only, never their address'),
    body: z.string(),
    markdown: z.boolean().describe('SPEC D6: true for text written in hxdesk (Markdown), false for mail (plain text)'),
    created_at: zTimestamp,
    attachments: z.array(AttachmentSchema),
  })
  .meta({ id: 'PortalTransaction' });
export const PortalViewSchema = z
  .strictObject({ ticket: PortalTicketSchema, transactions: z.array(PortalTransactionSchema) })
  .meta({ id: 'PortalView' });

/** GET /portal: which page of the customer's requests (decision 050). */
export const PortalListQuerySchema = z.strictObject({
  offset: z.coerce
    .number({ error: 'Expected a whole number' })
    .int('Expected a whole number')
    .min(0, 'Expected a whole number')
    .max(1_000_000_000, 'At most 1000000000')
    .optional(),
});
export const PortalListSchema = z
  .strictObject({
    tickets: z.array(PortalTicketSchema),
    total: z.number().int().min(0),
    limit: z.number().int().min(0),
    offset: z.number().int().min(0),
  })
  .meta({ id: 'PortalList' });

/** POST /portal/requests: a new request (JSON with base64 files, or a form with files in `attachments`). */
export const NewRequestSchema = z.strictObject({
  queue_id: z.preprocess((v) => (v === '' ? undefined : v), zId.optional()),
  subject: z.string().max(500, 'At most 500 characters'),
  body: z.string().max(100_000, 'At most 100000 characters').optional(),
  attachments: z.array(file).max(MAX_REPLY_FILES, `At most ${MAX_REPLY_FILES} files`).optional(),
});
export const PortalQueueSchema = z
  .strictObject({ id: zRowId, name: z.string(), description: z.string() })
  .meta({ id: 'PortalQueue' });
