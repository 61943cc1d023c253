import { Temporal } from 'temporal-polyfill';

// SPEC D2: the snooze presets a reader is offered (decision 071) — later today, tomorrow morning,
// next week — in the reader's time zone (Temporal: the zone rules Node carries).

export interface SnoozePreset {
  key: 'later_today' | 'tomorrow_morning' | 'next_week';
  label: string;
  /** The instant (ISO). */
  at: string;
}

/** When the presets' mornings start. */
const MORNING = 9;
/** Later today is three hours on, on the hour, while that is no later than this hour. */
const EVENING = 21;

const QUARTER = 900_000;
const presetsMemo = new Map<string, SnoozePreset[]>();

/** The zone's offset from UTC at `ms`, in ns. */
const offsetAt = (ms: number, zone: string) =>
  Temporal.Instant.fromEpochMilliseconds(ms).toZonedDateTimeISO(zone).offsetNanoseconds;

/**
 * The snooze presets for a reader in `zone` at `nowMs`: later today (while the day lasts), tomorrow
 * morning, next Monday morning. Every ticket page shows them (issue 32: Temporal was ~3 % of a
 * page): they are kept per zone and UTC quarter hour, which sees one local hour and date wherever
 * the offset is a whole number of quarter hours and does not change inside it (checked once per
 * quarter; else, and on a quarter's first millisecond, computed each time).
 */
export function snoozePresets(nowMs: number, zone: string): SnoozePreset[] {
  if (nowMs % QUARTER === 0) return presetsAt(nowMs, zone);
  const start = Math.floor(nowMs / QUARTER) * QUARTER;
  const key = `${zone}|${start}`;
  const known = presetsMemo.get(key);
  if (known) return known.map((p) => ({ ...p }));
  const out = presetsAt(nowMs, zone);
  const offset = offsetAt(start, zone);
  if (offset % (QUARTER * 1e6) === 0 && offsetAt(start + QUARTER - 1, zone) === offset) {
    if (presetsMemo.size >= 1000) presetsMemo.clear();
    presetsMemo.set(
      key,
      out.map((p) => ({ ...p })),
    );
  }
  return out;
}

/** The presets computed at the moment, without the memo (what the memo must give; tests compare). */
export function snoozePresetsUncached(nowMs: number, zone: string): SnoozePreset[] {
  return presetsAt(nowMs, zone);
}

function presetsAt(nowMs: number, zone: string): SnoozePreset[] {
  const now = Temporal.Instant.fromEpochMilliseconds(nowMs).toZonedDateTimeISO(zone);
  const iso = (z: Temporal.ZonedDateTime) => new Date(z.epochMilliseconds).toISOString();
  const at = (days: number, hour: number) =>
    now
      .toPlainDate()
      .add({ days })
      .toZonedDateTime({ timeZone: zone, plainTime: Temporal.PlainTime.from({ hour }) });
  const out: SnoozePreset[] = [];
  const later = now.hour + 3 + (now.minute > 0 || now.second > 0 || now.millisecond > 0 ? 1 : 0);
  if (later <= EVENING) out.push({ key: 'later_today', label: 'Later today', at: iso(at(0, later)) });
  const tomorrow = iso(at(1, MORNING));
  out.push({ key: 'tomorrow_morning', label: 'Tomorrow morning', at: tomorrow });
  const nextWeek = iso(at(8 - now.dayOfWeek, MORNING));
  // On a Sunday next week begins tomorrow morning: offered once.
  if (nextWeek !== tomorrow) out.push({ key: 'next_week', label: 'Next week', at: nextWeek });
  return out;
}
