import { asc, eq } from 'drizzle-orm';
import { Temporal } from 'temporal-polyfill';
import { cachedConfig, configTransaction } from '../../db/configCache.js';
import { type Conn, type Db, first, one } from '../../db/port.js';
import { calendars, slaPolicies } from '../../db/tables.js';
import { type Actor, parseJson, requireAdmin, requireStaff } from '../actor.js';
import { nowIso, nowMs } from '../clock.js';
import { AppError, invalid, notFound } from '../errors.js';
import { unique } from '../unique.js';
import { addBusinessMs, type CalendarSpec, WEEKDAYS, type Weekday } from './businessTime.js';

// SPEC D2 calendars (docs/decisions/068): business hours per weekday, holidays and a time zone.
// Admins write them, agents read them; the SLA clocks and idle scrips read them as a
// CalendarSpec through `calendarSpec` / `defaultCalendarSpec`, kept per configuration version.

type Row = typeof calendars.$inferSelect;
export type Hours = Record<Weekday, [string, string][]>;

export interface CalendarJson {
  id: number;
  name: string;
  time_zone: string;
  hours: Hours;
  holidays: string[];
  default: boolean;
  created_at: string;
  updated_at: string;
}

export interface CalendarInput {
  name: string;
  time_zone: string;
  hours?: Partial<Record<Weekday, [string, string][]>>;
  holidays?: string[];
  default?: boolean;
}

export const DAY_NAMES: Record<Weekday, string> = {
  mon: 'Monday',
  tue: 'Tuesday',
  wed: 'Wednesday',
  thu: 'Thursday',
  fri: 'Friday',
  sat: 'Saturday',
  sun: 'Sunday',
};

const fullHours = (h: Partial<Hours>): Hours => Object.fromEntries(WEEKDAYS.map((d) => [d, h[d] ?? []])) as Hours;

const toJson = (r: Row): CalendarJson => ({
  id: r.id,
  name: r.name,
  time_zone: r.time_zone,
  hours: fullHours(parseJson(r.hours, {})),
  holidays: parseJson(r.holidays, []),
  default: r.is_default,
  created_at: r.created_at,
  updated_at: r.updated_at,
});

const toSpec = (r: Row): CalendarSpec => ({
  time_zone: r.time_zone,
  hours: parseJson(r.hours, {}),
  holidays: parseJson(r.holidays, []),
});

// ---- Validation: every refusal names its field (`hours.mon.1`, `holidays.3`) -------------------

/** An IANA zone name as the zone database spells it ("europe/berlin" → "Europe/Berlin"), or a 422. */
export function ianaZone(name: string): string {
  // Offsets ("+02:00") are not zones: they know no daylight-saving time.
  if (/^[A-Za-z]/.test(name)) {
    try {
      return Temporal.Instant.fromEpochMilliseconds(0).toZonedDateTimeISO(name).timeZoneId;
    } catch {
      /* not a zone */
    }
  }
  throw invalid('time_zone', `Time zone "${name}" is not an IANA time zone name (such as Europe/Berlin)`);
}

const TIME = /^(?:[01]\d|2[0-3]):[0-5]\d$/;
const minutesOf = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3));

/** The week's opening hours, checked day by day: well-formed, each stretch ending after it starts, in order. */
export function checkHours(hours: Partial<Record<Weekday, [string, string][]>>): Hours {
  let open = 0;
  for (const day of WEEKDAYS) {
    const stretches = hours[day] ?? [];
    let previousEnd = -1;
    stretches.forEach(([from, to], i) => {
      const path = `hours.${day}.${i}`;
      const what = `${DAY_NAMES[day]}'s hours ${i + 1} ("${from}"–"${to}")`;
      if (!TIME.test(from) || !(TIME.test(to) || to === '24:00')) {
        throw invalid(path, `${what} must be two times HH:MM, from 00:00 to 24:00`);
      }
      if (minutesOf(to) <= minutesOf(from)) throw invalid(path, `${what} must end after they start`);
      if (minutesOf(from) < previousEnd) {
        throw invalid(path, `${what} must start after the ones before them end (in order, not overlapping)`);
      }
      previousEnd = minutesOf(to);
      open++;
    });
  }
  if (open === 0) throw invalid('hours', 'Hours must open on at least one day of the week');
  return fullHours(hours);
}

/** Holidays: `YYYY-MM-DD` (that day) or `--MM-DD` (every year), real dates; sorted, each once. */
export function checkHolidays(holidays: string[]): string[] {
  holidays.forEach((h, i) => {
    const path = `holidays.${i}`;
    let ok = false;
    try {
      if (/^\d{4}-\d{2}-\d{2}$/.test(h)) ok = Temporal.PlainDate.from(h, { overflow: 'reject' }).toString() === h;
      else if (/^--\d{2}-\d{2}$/.test(h)) {
        // Any year's day: 29 February is a holiday in leap years.
        ok = Temporal.PlainDate.from(`2024-${h.slice(2)}`, { overflow: 'reject' }) !== undefined;
      }
    } catch {
      ok = false;
    }
    if (!ok) throw invalid(path, `Holiday ${i + 1} ("${h}") must be a date YYYY-MM-DD, or --MM-DD for every year`);
  });
  return [...new Set(holidays)].sort();
}

// ---- Reading ------------------------------------------------------------------------------------

export async function listCalendars(db: Db, actor: Actor): Promise<CalendarJson[]> {
  requireStaff(actor);
  return (await db.select().from(calendars).orderBy(asc(calendars.name), asc(calendars.id))).map(toJson);
}

async function rowOf(db: Conn, id: number): Promise<Row> {
  const row = await first(db.select().from(calendars).where(eq(calendars.id, id)));
  if (!row) throw notFound('Calendar', id);
  return row;
}

export async function getCalendar(db: Db, actor: Actor, id: number): Promise<CalendarJson> {
  requireStaff(actor);
  return toJson(await rowOf(db, id));
}

/** A calendar's business time as the clocks count it; null id (or no such calendar): around the clock. */
export async function calendarSpec(conn: Conn, id: number | null): Promise<CalendarSpec | null> {
  if (id == null) return null;
  return cachedConfig(conn, `calendar:${id}`, async () => {
    const row = await first(conn.select().from(calendars).where(eq(calendars.id, id)));
    return row ? toSpec(row) : null;
  });
}

/** The default calendar's business time; null when there is none. */
export async function defaultCalendarSpec(conn: Conn): Promise<CalendarSpec | null> {
  return cachedConfig(conn, 'calendar:default', async () => {
    const row = await first(conn.select().from(calendars).where(eq(calendars.is_default, true)));
    return row ? toSpec(row) : null;
  });
}

// ---- Writing (admins) ---------------------------------------------------------------------------

function checked(input: Partial<CalendarInput>) {
  return {
    ...(input.name !== undefined && { name: input.name }),
    ...(input.time_zone !== undefined && { time_zone: ianaZone(input.time_zone) }),
    ...(input.hours !== undefined && { hours: JSON.stringify(checkHours(input.hours)) }),
    ...(input.holidays !== undefined && { holidays: JSON.stringify(checkHolidays(input.holidays)) }),
    ...(input.default !== undefined && { is_default: input.default }),
  };
}

export async function createCalendar(db: Db, actor: Actor, input: CalendarInput): Promise<CalendarJson> {
  requireAdmin(actor);
  const values = checked({ hours: {}, holidays: [], ...input });
  const now = nowIso(db);
  const row = await configTransaction(db, (tx) =>
    unique(db, input, async () => {
      // At most one default: making this one the default unsets the other.
      if (values.is_default)
        await tx.update(calendars).set({ is_default: false }).where(eq(calendars.is_default, true));
      return one(
        tx
          .insert(calendars)
          .values({
            name: input.name,
            time_zone: values.time_zone!,
            hours: values.hours!,
            holidays: values.holidays!,
            is_default: values.is_default ?? false,
            created_at: now,
            updated_at: now,
          })
          .returning(),
      );
    }),
  );
  return toJson(row);
}

export async function updateCalendar(
  db: Db,
  actor: Actor,
  id: number,
  input: Partial<CalendarInput>,
): Promise<CalendarJson> {
  requireAdmin(actor);
  await rowOf(db, id);
  const values = checked(input);
  const row = await configTransaction(db, (tx) =>
    unique(db, input, async () => {
      if (values.is_default)
        await tx.update(calendars).set({ is_default: false }).where(eq(calendars.is_default, true));
      return one(
        tx
          .update(calendars)
          .set({ ...values, updated_at: nowIso(db) })
          .where(eq(calendars.id, id))
          .returning(),
      );
    }),
  );
  return toJson(row);
}

/** Deleting a calendar an SLA policy counts in is refused (409 naming the policy). */
export async function deleteCalendar(db: Db, actor: Actor, id: number): Promise<void> {
  requireAdmin(actor);
  const cal = await rowOf(db, id);
  await configTransaction(db, async (tx) => {
    const user = await first(
      tx
        .select({ id: slaPolicies.id, name: slaPolicies.name })
        .from(slaPolicies)
        .where(eq(slaPolicies.calendar_id, id))
        .orderBy(asc(slaPolicies.position), asc(slaPolicies.id)),
    );
    if (user) {
      const message = `Calendar "${cal.name}" is used by the SLA policy "${user.name}" (${user.id}): change that policy's calendar first`;
      throw new AppError('conflict', message, [{ path: 'id', message }]);
    }
    await tx.delete(calendars).where(eq(calendars.id, id));
  });
}

// ---- Explain ------------------------------------------------------------------------------------

export interface Explanation {
  time_zone: string;
  start: string;
  minutes: number;
  due_at: string;
  segments: { start: string; end: string }[];
}

const isoOf = (ms: number) => Temporal.Instant.fromEpochMilliseconds(ms).toString({ fractionalSecondDigits: 3 });

/**
 * When `minutes` business minutes after `start` end, and the stretches counted. `start`: an
 * instant, or a wall time without offset in the calendar's zone; default now.
 */
export async function explainCalendar(
  db: Db,
  actor: Actor,
  id: number,
  q: { start?: string; minutes: number },
): Promise<Explanation> {
  requireStaff(actor);
  const cal = toSpec(await rowOf(db, id));
  let startMs: number;
  try {
    startMs =
      q.start === undefined
        ? nowMs(db)
        : /(?:Z|[+-]\d{2}:?\d{2})$/i.test(q.start)
          ? Temporal.Instant.from(q.start).epochMilliseconds
          : // A wall time with no offset is read in the calendar's zone (the explain form's date-time).
            Temporal.PlainDateTime.from(q.start, { overflow: 'reject' }).toZonedDateTime(cal.time_zone)
              .epochMilliseconds;
  } catch {
    throw invalid('start', `Start "${q.start}" is not a date and time`);
  }
  let r: ReturnType<typeof addBusinessMs>;
  try {
    r = addBusinessMs(cal, startMs, q.minutes * 60_000);
  } catch (e) {
    if (e instanceof RangeError) throw invalid('minutes', `The calendar never opens: ${e.message}`);
    throw e;
  }
  return {
    time_zone: cal.time_zone,
    start: isoOf(startMs),
    minutes: q.minutes,
    due_at: isoOf(r.dueMs),
    segments: r.segments.map((s) => ({ start: isoOf(s.start), end: isoOf(s.end) })),
  };
}
