import { z } from 'zod';
import { WEEKDAYS, type Weekday } from '../../domain/time/businessTime.js';
import { zBool, zInt, zText } from '../../domain/validation.js';
import { zRowId, zTimestamp } from '../openapi.js';

/**
 * One weekday's opening hours: JSON pairs `[["09:00","12:30"],["13:30","17:00"]]`, or the text a
 * form sends, "09:00-12:30, 13:30-17:00" (empty: closed). Whether the times are well-formed and in
 * order is the domain's to say, naming the stretch (`hours.mon.1`).
 */
const zDay = z.preprocess(
  (v) =>
    typeof v === 'string'
      ? v
          .split(/[,;\n]/)
          .map((s) => s.trim())
          .filter(Boolean)
          .map((s) => {
            const [from = '', to = ''] = s.split(/\s*[-–—]\s*|\s+to\s+/);
            return [from.trim(), to.trim()];
          })
      : v,
  z
    .array(z.tuple([z.string().max(5), z.string().max(5)]), { error: 'must be a list of ["HH:MM","HH:MM"] pairs' })
    .max(12),
);
const zHours = z.strictObject(
  Object.fromEntries(WEEKDAYS.map((d) => [d, zDay.optional()])) as Record<Weekday, z.ZodOptional<typeof zDay>>,
);

/** Holidays: a JSON list, or a form's text with one date per line (or comma-separated). */
const zHolidays = z.preprocess(
  (v) => (typeof v === 'string' ? v.split(/[\s,]+/).filter(Boolean) : v),
  z.array(z.string().max(10)).max(500),
);

export const CreateCalendarSchema = z.strictObject({
  name: zText(100, 1),
  time_zone: zText(64, 1).describe('An IANA time zone name, such as Europe/Berlin'),
  hours: zHours
    .optional()
    .describe('Per weekday (mon … sun) a list of ["HH:MM","HH:MM"] stretches; a day not given is closed'),
  holidays: zHolidays.optional().describe('Dates YYYY-MM-DD, or --MM-DD for every year'),
  default: zBool.optional().describe('At most one calendar is the default: setting it unsets the other'),
});
export const UpdateCalendarSchema = CreateCalendarSchema.partial();

const zPair = z.tuple([z.string(), z.string()]);
/** A calendar as the API answers it (SPEC D2). */
export const CalendarSchema = z
  .strictObject({
    id: zRowId,
    name: z.string(),
    time_zone: z.string(),
    hours: z.strictObject(
      Object.fromEntries(WEEKDAYS.map((d) => [d, z.array(zPair)])) as Record<Weekday, z.ZodArray<typeof zPair>>,
    ),
    holidays: z.array(z.string()),
    default: z.boolean(),
    created_at: zTimestamp,
    updated_at: zTimestamp,
  })
  .meta({ id: 'Calendar' });

export const ExplainQuerySchema = z.strictObject({
  start: z.iso
    .datetime({ offset: true, local: true, error: 'must be a date and time (ISO 8601)' })
    .optional()
    .describe("ISO 8601; without an offset, a wall time in the calendar's time zone. Default: now"),
  minutes: zInt(0, 525_600),
});

const zInstant = z.iso.datetime({ offset: true });
export const ExplanationSchema = z
  .strictObject({
    time_zone: z.string().describe("The calendar's"),
    start: zInstant,
    minutes: z.number().int(),
    due_at: zInstant.describe('When the business minutes after start end'),
    segments: z
      .array(z.strictObject({ start: zInstant, end: zInstant }))
      .describe('The stretches counted: the first starts at start or the next opening, the last ends at due_at'),
  })
  .meta({ id: 'CalendarExplanation' });
