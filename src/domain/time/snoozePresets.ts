// SPEC D2: the snooze presets offered to a reader (later today, tomorrow morning, next week) and a
// local date-time a form sends, both in the reader's time zone (decision 071). The zone's offset
// at an instant comes from Intl (the time zone database Node carries), never from a table of ours.

const formats = new Map<string, Intl.DateTimeFormat>();
function format(zone: string): Intl.DateTimeFormat {
  let f = formats.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      weekday: 'short',
    });
    formats.set(zone, f);
  }
  return f;
}

interface Local {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  /** 1 = Monday … 7 = Sunday. */
  weekday: number;
}
const WEEKDAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];

/** The wall-clock reading of `ms` in `zone`. */
export function localParts(ms: number, zone: string): Local {
  const parts = Object.fromEntries(
    format(zone)
      .formatToParts(ms)
      .map((p) => [p.type, p.value]),
  );
  return {
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    hour: Number(parts.hour),
    minute: Number(parts.minute),
    second: Number(parts.second),
    weekday: WEEKDAYS.indexOf(parts.weekday) + 1,
  };
}

/** How far `zone` is ahead of UTC at the instant `ms` (milliseconds). */
function offsetAt(ms: number, zone: string): number {
  const l = localParts(ms, zone);
  return Date.UTC(l.year, l.month - 1, l.day, l.hour, l.minute, l.second) - Math.floor(ms / 1000) * 1000;
}

/**
 * The instant a wall-clock time in `zone` names (`2026-12-23T09:00`). A time the clocks skip
 * (spring forward) reads as the same distance past the change; one they repeat, the first.
 */
export function localToInstant(local: string, zone: string): number {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/.exec(local);
  if (!m) return Number.NaN;
  const wall = Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +(m[6] ?? 0));
  // The offsets a day either side of it (any change of the clocks lies between): each that reads back is a meaning.
  const before = offsetAt(wall - 86_400_000, zone);
  const after = offsetAt(wall + 86_400_000, zone);
  const meanings = [wall - before, wall - after].filter((t) => offsetAt(t, zone) === wall - t);
  return meanings.length > 0 ? Math.min(...meanings) : wall - before;
}

const pad = (n: number) => String(n).padStart(2, '0');
/** The wall-clock time `days` after the local date of `l`, at `hour`:00 (as localToInstant reads it). */
const dayAt = (l: Local, days: number, hour: number) => {
  const d = new Date(Date.UTC(l.year, l.month - 1, l.day + days));
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}T${pad(hour)}:00`;
};

export interface SnoozePreset {
  key: 'later_today' | 'tomorrow_morning' | 'next_week';
  label: string;
  /** The instant (ISO). */
  at: string;
}

/** When business starts in the presets' mornings. */
const MORNING = 9;
/** Later today is three hours on, on the hour, while that is before this hour. */
const EVENING = 21;

/** The snooze presets for a reader in `zone` at `nowMs`: later today (while the day lasts), tomorrow morning, next Monday morning. */
export function snoozePresets(nowMs: number, zone: string): SnoozePreset[] {
  const l = localParts(nowMs, zone);
  const out: SnoozePreset[] = [];
  const later = l.hour + 3 + (l.minute > 0 || l.second > 0 ? 1 : 0);
  const iso = (local: string) => new Date(localToInstant(local, zone)).toISOString();
  if (later <= EVENING) out.push({ key: 'later_today', label: 'Later today', at: iso(dayAt(l, 0, later)) });
  out.push({ key: 'tomorrow_morning', label: 'Tomorrow morning', at: iso(dayAt(l, 1, MORNING)) });
  const nextWeek = iso(dayAt(l, 8 - l.weekday, MORNING));
  // On a Sunday next week begins tomorrow morning: offered once.
  if (nextWeek !== out[out.length - 1].at) out.push({ key: 'next_week', label: 'Next week', at: nextWeek });
  return out;
}
