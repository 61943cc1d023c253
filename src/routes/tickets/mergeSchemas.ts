import { z } from 'zod';
import { zId, zText } from '../../domain/validation.js';
import { zRowId } from '../openapi.js';
import { ScripResultSchema, TicketSchema } from './schemas.js';

// SPEC D3 merge, unmerge and spam (decisions 076, 077): the bodies and answers of their routes.

const STAFF_ONLY = 'Staff only.';
/** A ticket number as typed: 12 or #12. */
const zTicketRef = z.preprocess((v) => (typeof v === 'string' ? v.trim().replace(/^#\s*/, '') : v), zId);

export const MergeSchema = z.strictObject({
  into: zTicketRef.describe('The ticket to merge into (its number; a form may write #12)'),
});
export const MergeQuerySchema = z.strictObject({
  into: zTicketRef.optional().describe('The ticket a merge would go into: what it would move'),
  q: zText(200).optional().describe('The page: tickets to merge into, by number or subject'),
});
export const UnmergeSchema = z.strictObject({
  ticket_id: zTicketRef.describe('The merged ticket to give back its own history, people, tags and links'),
});

/** A merged ticket as GET /tickets/:id answers it in JSON (SPEC D3). */
export const TombstoneSchema = z
  .strictObject({
    ticket: z.strictObject({
      id: zRowId,
      merged_into: zRowId.describe(
        'The ticket this one was merged into: its history, people, tags and links are there',
      ),
    }),
  })
  .meta({ id: 'MergedTicket', description: 'A ticket merged into another (a tombstone)' });

export const MergeResultSchema = z
  .strictObject({
    ticket: TicketSchema.describe('The target (merge) or the merged ticket given back (unmerge)'),
    merged: z.strictObject({ id: zRowId, merged_into: zRowId }),
    scrip_results: z.array(ScripResultSchema).optional().describe(STAFF_ONLY),
  })
  .meta({ id: 'MergeResult' });

export const MergePreviewSchema = z
  .strictObject({
    ticket: z.strictObject({ id: zRowId, subject: z.string() }),
    into: z.strictObject({ id: zRowId, subject: z.string() }),
    entries: z.number().int().min(0).describe('History entries that move (with their files)'),
    people: z.number().int().min(0).describe('Requesters, Cc and AdminCc that move (the target keeps its own)'),
    tags: z.number().int().min(0),
    links: z.number().int().min(0).describe('Links re-pointed to the target (one between the two is dropped)'),
  })
  .meta({ id: 'MergePreview' });

export const SpamResultSchema = z
  .strictObject({
    ticket: TicketSchema,
    blocked_user_id: zRowId.nullable().describe('The requester now blocked (null: the ticket had none)'),
    scrip_results: z.array(ScripResultSchema).optional().describe(STAFF_ONLY),
  })
  .meta({ id: 'SpamResult' });

export const SpamQuestionSchema = z
  .strictObject({
    ticket: z.strictObject({ id: zRowId, subject: z.string() }),
    requester: z
      .strictObject({ id: zRowId, email: z.string(), staff: z.boolean().describe('Staff cannot be blocked (422)') })
      .nullable(),
  })
  .meta({ id: 'SpamQuestion' });
