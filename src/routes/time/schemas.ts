import { z } from 'zod';
import { MINUTES_MAX, NOTE_MAX } from '../../domain/timeWorked/entries.js';
import { isDate } from '../../domain/dates.js';
import { zId, zInt, zText } from '../../domain/validation.js';
import { zRowId, zTimestamp } from '../openapi.js';

// SPEC D4 time worked (decision 081): POST /tickets/:id/time, GET /time, and the reply's
// `time_minutes` (in CommentSchema). One schema each for JSON and forms; the same feed OpenAPI.

/** A form's empty field is no value. */
const blank = (v: unknown) => (v === '' ? undefined : v);

/** Minutes worked: a whole number, not 0, within a day either way (negative corrects earlier time). */
export const zMinutes = zInt(-MINUTES_MAX, MINUTES_MAX).refine((n) => n !== 0, {
  message: 'must not be 0 (negative minutes correct earlier time)',
});

/** A reply's or note's minutes: empty or 0 (a form's untouched field) is none. */
export const zTimeMinutes = z.preprocess(
  (v) => (v === '' || v === '0' || v === 0 ? undefined : v),
  zMinutes.optional(),
);

/** A calendar date, `YYYY-MM-DD`. */
export const zDate = z
  .string({ error: 'must be a date (YYYY-MM-DD)' })
  .trim()
  .refine(isDate, 'must be a date (YYYY-MM-DD)');

export const AddTimeSchema = z.strictObject({
  minutes: zMinutes.describe(`Whole minutes, not 0, between -${MINUTES_MAX} and ${MINUTES_MAX}; negative corrects`),
  worked_on: z
    .preprocess(blank, zDate.optional())
    .describe('The day worked, in your time zone (default today there); never in the future'),
  note: z.preprocess(blank, zText(NOTE_MAX).optional()).describe(`What was done, at most ${NOTE_MAX} characters`),
  user_id: z
    .preprocess(blank, zId.optional())
    .describe('Who worked (default you); only administrators may name someone else'),
});

export const TimeEntrySchema = z
  .strictObject({
    id: zRowId,
    ticket_id: zRowId,
    user_id: zRowId.describe('Who worked'),
    creator_id: zRowId.describe('Who entered it'),
    minutes: z.number().int(),
    worked_on: z.string().describe('YYYY-MM-DD'),
    note: z.string(),
    created_at: zTimestamp,
  })
  .meta({ id: 'TimeEntry' });

export const TimeQuerySchema = z.strictObject(
  {
    user_id: z.preprocess(blank, zId.optional()).describe('Whose entries (default yours; others: administrators)'),
    from: z.preprocess(blank, zDate.optional()).describe('First day (default: Monday of the current week)'),
    to: z
      .preprocess(blank, zDate.optional())
      .describe('The day after the last (the period is [from, to); default: from + 7 days)'),
  },
  { error: (iss) => (iss.code === 'unrecognized_keys' ? `Unknown parameter: ${iss.keys.join(', ')}` : undefined) },
);

export const TimeListSchema = z
  .strictObject({
    user_id: zRowId,
    from: z.string().describe('YYYY-MM-DD, the first day'),
    to: z.string().describe('YYYY-MM-DD, the day after the last'),
    entries: z.array(TimeEntrySchema.extend({ ticket_subject: z.string() }).meta({ id: 'TimeEntryListed' })),
    total_minutes: z.number().int(),
  })
  .meta({ id: 'TimeList' });
