import { z } from 'zod';
import { LINK_NAMES } from '../../domain/links.js';
import { zId, zText } from '../../domain/validation.js';
import { zRowId } from '../openapi.js';

// SPEC D3 links and split (docs/decisions/075): what the routes accept and answer.

const ids = z.array(zRowId);
/** Ticket JSON's `links`: the linked tickets by each name, ids sorted. */
export const LinksSchema = z
  .strictObject({
    depends_on: ids,
    depended_on_by: ids,
    refers_to: ids,
    referred_to_by: ids,
    parent_of: ids,
    child_of: ids,
  })
  .meta({ id: 'TicketLinks' });

export const LinkNameSchema = z.enum(LINK_NAMES, { error: `Expected one of: ${LINK_NAMES.join(', ')}` });

/** A ticket by number: `12` or `#12` (the Links form's box). */
const ticketNumber = z.preprocess(
  (v) => (typeof v === 'string' ? v.trim().replace(/^#/, '') : v),
  zId.describe('The other ticket, by number (a form may write #12)'),
);

export const AddLinkSchema = z.strictObject({
  type: LinkNameSchema.describe(
    'depends_on, refers_to or parent_of (stored that way); the reverse names (depended_on_by, referred_to_by, child_of) link the other way round',
  ),
  ticket_id: ticketNumber,
});

export const SplitSchema = z.strictObject({
  transaction_id: zId.describe('The message (Create, Correspond or Comment) to split off into a new ticket'),
  subject: zText(500, 1).optional().describe("The new ticket's subject (default: this ticket's)"),
});

/** GET /tickets/:id/link-search: tickets to link, by number or words of the subject. */
export const LinkSearchQuerySchema = z.strictObject({
  q: z.string().trim().max(200, 'At most 200 characters').default(''),
  ticket_id: z
    .string()
    .trim()
    .max(200, 'At most 200 characters')
    .optional()
    .describe('The Links form’s box: read as q'),
});
export const LinkCandidatesSchema = z
  .strictObject({
    tickets: z.array(z.strictObject({ id: zRowId, subject: z.string(), status: z.string() })),
  })
  .meta({ id: 'LinkCandidates' });
