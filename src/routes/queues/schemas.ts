import { z } from 'zod';
import { zBool, zInt, zList, zNullableId, zText } from '../../domain/validation.js';
import { MAIL_CC_PER_MESSAGE, MAIL_CC_PER_TICKET } from '../../domain/mailCc.js';
import { zRowId, zTimestamp } from '../openapi.js';

const mailAlias = z.union([
  z.literal('').transform(() => null),
  z.null(),
  z.string().trim().max(254).pipe(z.email('Expected an e-mail address')),
]);
/**
 * People by id (7) or address (ann@example.com), checked by the domain. A form sends them
 * comma-separated, where a stray comma ("ann@example.com, ") names nobody.
 */
const personRef = z.union([z.number().int().positive(), z.string().trim().min(1).max(320)], {
  error: 'Expected a user id or an e-mail address',
});
const people = z
  .preprocess(
    (v) =>
      typeof v === 'string'
        ? v
            .split(',')
            .map((x) => x.trim())
            .filter((x) => x !== '')
        : v,
    zList(personRef),
  )
  .pipe(z.array(personRef).max(100, 'At most 100 people'));
export const CreateQueueSchema = z.strictObject({
  name: zText(100, 1),
  description: zText(2000).optional(),
  mail_alias: mailAlias.optional(),
  team_id: zNullableId.optional(),
  keep_mail_cc: zBool.optional(),
  /** SPEC D6: requesters may open new requests in this queue from the portal. */
  portal_create: zBool.optional(),
  /** SPEC D4: the Resolved mail carries a signed rating link (decision 082). */
  csat_enabled: zBool.optional(),
  // SPEC D0: the Cc bounds may be lowered, never raised.
  mail_cc_per_message: zInt(1, MAIL_CC_PER_MESSAGE).optional(),
  mail_cc_per_ticket: zInt(1, MAIL_CC_PER_TICKET).optional(),
  signature: z.string().max(4000, 'At most 4000 characters').optional(),
  cc: people.optional(),
  admin_cc: people.optional(),
  /** SPEC D3: the queue's lifecycle; null: RT's default. */
  lifecycle_id: zNullableId.optional().describe("SPEC D3: the queue's lifecycle (GET /lifecycles); null: RT's default"),
});
export const UpdateQueueSchema = CreateQueueSchema.partial();

const STAFF_ONLY =
  'Staff only: absent when a requester reads it (requesters read the queues they may open requests in)';
/** A queue as the API answers it (SPEC B3); its mail and watcher settings for staff only (decision 050). */
export const QueueSchema = z
  .strictObject({
    id: zRowId,
    name: z.string(),
    description: z.string(),
    mail_alias: z.string().nullable().optional().describe(STAFF_ONLY),
    team_id: zRowId.nullable().optional().describe(STAFF_ONLY),
    keep_mail_cc: z.boolean().optional().describe(STAFF_ONLY),
    portal_create: z.boolean().describe('Requesters may open new requests in this queue from the portal'),
    signature: z.string().optional().describe(STAFF_ONLY),
    mail_cc_per_message: z.number().int().optional().describe(STAFF_ONLY),
    mail_cc_per_ticket: z.number().int().optional().describe(STAFF_ONLY),
    lifecycle_id: zRowId
      .nullable()
      .optional()
      .describe(`SPEC D3: the queue's lifecycle; null: RT's default. ${STAFF_ONLY}`),
    csat_enabled: z
      .boolean()
      .optional()
      .describe(`SPEC D4: the "Resolved" mail asks the requester for a rating. ${STAFF_ONLY}`),
    created_at: zTimestamp,
    updated_at: zTimestamp,
    cc: z.array(zRowId).optional().describe('Staff only: user ids who get every public reply of the queue'),
    admin_cc: z.array(zRowId).optional().describe('Staff only: user ids who get every reply and note of the queue'),
  })
  .meta({ id: 'Queue' });
