import { z } from 'zod';
import { RATINGS } from '../../domain/csat.js';
import { zText } from '../../domain/validation.js';
import { zRowId, zTimestamp } from '../openapi.js';

const rating = z.enum(RATINGS, { error: 'Choose good, okay or bad' });

/** SPEC D4: the rating form (or JSON) posted to a rating link. */
export const RateSchema = z.strictObject({
  rating,
  comment: zText(4000).optional(),
});

/**
 * The query of a rating link: `?rating=` pre-selects a choice (and records nothing). Other
 * parameters (a mail client's tracking) are ignored: the link still opens.
 */
export const RateQuerySchema = z.object({
  rating: rating.optional().describe('Pre-selects this choice on the form; records nothing'),
  rated: z.string().optional().describe('Set by the redirect after a rating: the page thanks the reader'),
});

export const CsatSchema = z
  .strictObject({ rating: rating, comment: z.string(), rated_at: zTimestamp })
  .meta({ id: 'Csat' });
export const CsatLinkSchema = z
  .strictObject({
    ticket: z.strictObject({ id: zRowId, subject: z.string() }),
    rating: CsatSchema.nullable().describe("The current rating of this link's resolve"),
    expires_at: zTimestamp,
  })
  .meta({ id: 'CsatLink' });
export const RatedSchema = CsatLinkSchema.extend({ transaction_id: zRowId }).meta({ id: 'CsatRated' });
