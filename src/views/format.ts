import { createContext, jsx, useContext } from 'hono/jsx';
import { escapeToBuffer, type HtmlEscapedString, raw } from 'hono/utils/html';
import type { Lookups, Person } from '../domain/lookups.js';

/**
 * The template for the parts a page repeats (list rows, history entries; docs/decisions/086):
 * hono's `html` helper with the same rules — every interpolated string is escaped by hono's own
 * escapeToBuffer (as JSX escapes text and attributes), numbers are written as they are, null,
 * undefined and booleans are nothing, arrays are their items, and escaped values (other `h`
 * parts, JSX nodes, markdown-it's output wrapped by views/markdown.tsx) are kept — without the
 * arrays hono's helper allocates per value. Nothing async may go in (it throws).
 */
export function h(strings: TemplateStringsArray, ...values: unknown[]): HtmlEscapedString {
  const buffer: [string] = [strings[0]];
  for (let i = 0; i < values.length; i++) {
    put(buffer, values[i]);
    buffer[0] += strings[i + 1];
  }
  return raw(buffer[0]);
}

function put(buffer: [string], v: unknown): void {
  if (typeof v === 'string') escapeToBuffer(v, buffer);
  else if (typeof v === 'number') buffer[0] += v;
  else if (v === null || v === undefined || typeof v === 'boolean') return;
  else if (Array.isArray(v)) for (let i = 0; i < v.length; i++) put(buffer, v[i]);
  else if (typeof v === 'object' && (v as { isEscaped?: boolean }).isEscaped) {
    const s = (v as object).toString() as unknown;
    if (typeof s !== 'string') throw new Error('h: an async part cannot be written into a template');
    buffer[0] += s;
  } else escapeToBuffer(String(v), buffer);
}

/**
 * The reader's IANA time zone (their settings page; `UTC` until they choose one). Provided once
 * around every render by the app (src/routes/respond.tsx `inZone`), read by `when`: screens show
 * times in the reader's zone, JSON keeps UTC ISO strings.
 */
export const TimeZone = createContext('UTC');

const formatters = new Map<string, Intl.DateTimeFormat>();
/** en-CA date and 24-hour minute in `zone`, one per zone (building a formatter costs ~100 µs). */
export function formatter(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-CA', {
      timeZone: zone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    });
    formatters.set(zone, f);
  }
  return f;
}

/**
 * The parts of `date` as a clock in `zone` shows it; null for a zone this Node does not know.
 * A list page asks for ~100 times at once (and for `now` with each): UTC is read off the ISO
 * string, other zones' answers are kept per minute (a bounded memo: formatToParts is the cost).
 */
const partsMemo = new Map<string, Record<string, string> | null>();
function partsIn(date: Date, zone: string): Record<string, string> | null {
  if (zone === 'UTC') {
    const iso = date.toISOString();
    return {
      year: iso.slice(0, 4),
      month: iso.slice(5, 7),
      day: iso.slice(8, 10),
      hour: iso.slice(11, 13),
      minute: iso.slice(14, 16),
    };
  }
  const key = `${zone}|${Math.floor(date.getTime() / 60_000)}`;
  const known = partsMemo.get(key);
  if (known !== undefined) return known;
  let parts: Record<string, string> | null;
  try {
    parts = Object.fromEntries(
      formatter(zone)
        .formatToParts(date)
        .map((p) => [p.type, p.value]),
    );
  } catch {
    parts = null;
  }
  if (partsMemo.size >= 10_000) partsMemo.clear();
  partsMemo.set(key, parts);
  return parts;
}

/** "2026-11-21 09:41" in the reader's time zone (UTC by default): compact, sortable, unambiguous. */
export function when(iso: string | null | undefined, zone: string = useContext(TimeZone)): string {
  if (!iso) return '';
  const utc = `${iso.slice(0, 10)} ${iso.slice(11, 16)}`;
  if (zone === 'UTC') return utc;
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return utc;
  const parts = partsIn(date, zone);
  if (!parts) return utc; // a zone this Node no longer knows: UTC rather than no date
  return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}`;
}

/**
 * The moment "now" of a render (ms since the epoch), provided with the time zone around every page
 * and fragment (src/app.tsx, src/routes/respond.tsx `inZone`): relative times ("5 min ago") are a
 * pure function of the time, the reader's zone and this. 0 (no provider): the clock at render.
 */
export const Now = createContext(0);

const zoneNames = new Map<string, Intl.DateTimeFormat>();
/** The zone's short name at that moment ("CET", "EDT", "GMT+1", "UTC"): it changes with DST. */
const zoneNameMemo = new Map<string, string>();
function zoneName(date: Date, zone: string): string {
  if (zone === 'UTC') return 'UTC';
  // Zone names change only at offset transitions, which fall on quarter hours (UTC): kept per quarter hour.
  const key = `${zone}|${Math.floor(date.getTime() / 900_000)}`;
  const known = zoneNameMemo.get(key);
  if (known !== undefined) return known;
  const name = zoneNameOf(date, zone);
  if (zoneNameMemo.size >= 10_000) zoneNameMemo.clear();
  zoneNameMemo.set(key, name);
  return name;
}
function zoneNameOf(date: Date, zone: string): string {
  let f = zoneNames.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'short' });
    zoneNames.set(zone, f);
  }
  return f.formatToParts(date).find((p) => p.type === 'timeZoneName')?.value ?? zone;
}

/** "2026-11-23 14:05 CET": the exact minute in the reader's zone, with the zone's name (UTC if unknown). */
export function exactTime(iso: string, zone: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  try {
    const name = zoneName(date, zone);
    return `${when(iso, zone)} ${name}`;
  } catch {
    return `${when(iso, 'UTC')} UTC`;
  }
}

/** Days between two calendar dates "YYYY-MM-DD". */
const dayNumber = (p: Record<string, string>) =>
  Date.UTC(Number(p.year), Number(p.month) - 1, Number(p.day)) / 86_400_000;

/**
 * How long ago, in words: "just now" (under a minute), "5 min ago", "3 h ago" (under 12 hours, or
 * earlier the same day), "yesterday", "2 days ago" … "6 days ago" (calendar days in the reader's
 * zone), then the date there ("2026-11-10"). A time ahead of `now` (clocks differ by a little):
 * "just now" within a minute, else the date and time.
 */
export function relativeTime(iso: string, now: number, zone: string): string {
  const t = new Date(iso).getTime();
  if (Number.isNaN(t)) return iso;
  const diff = now - t;
  if (diff < 60_000) return diff > -60_000 ? 'just now' : when(iso, zone);
  if (diff < 3_600_000) return `${Math.floor(diff / 60_000)} min ago`;
  const thenParts = () => partsIn(new Date(t), zone) ?? partsIn(new Date(t), 'UTC')!;
  // Calendar days in UTC are whole days since the epoch (a list asks ~100 times a page).
  const days =
    zone === 'UTC'
      ? Math.floor(now / 86_400_000) - Math.floor(t / 86_400_000)
      : dayNumber(partsIn(new Date(now), zone) ?? partsIn(new Date(now), 'UTC')!) - dayNumber(thenParts());
  if (diff < 12 * 3_600_000 || days === 0) return `${Math.floor(diff / 3_600_000)} h ago`;
  if (days === 1) return 'yesterday';
  if (days < 7) return `${days} days ago`;
  const then = thenParts();
  return `${then.year}-${then.month}-${then.day}`;
}

/**
 * A time on a page: `<time datetime="ISO" title="2026-11-23 14:05 CET">3 h ago</time>`, in the
 * reader's zone and relative to the render's `now` (both from context unless given). JSON keeps
 * the UTC ISO string. (A page left open keeps the words of its render; the title stays exact.)
 */
export function When({ iso, zone, now }: { iso: string | null | undefined; zone?: string; now?: number }) {
  if (!iso) return null;
  const z = zone ?? useContext(TimeZone);
  // real time: only a render outside a request (every page and fragment sets Now from the store's clock).
  const at = now ?? (useContext(Now) || Date.now());
  return jsx('time', { datetime: iso, title: exactTime(iso, z) }, relativeTime(iso, at, z));
}

/** `When` for the repeated parts written with `h`: the zone and `now` given, not read from the context. */
export function whenHtml(iso: string | null | undefined, zone: string, now: number): HtmlEscapedString | null {
  if (!iso) return null;
  return h`<time datetime="${iso}" title="${exactTime(iso, zone)}">${relativeTime(iso, now, zone)}</time>`;
}

/**
 * The lookups' users, queues and teams by id, built once per list (a page names hundreds; Array.find
 * per name was a cost). Keyed by the array itself, rebuilt if its length changed; the first of an
 * id wins, as find did.
 */
const indexes = new WeakMap<readonly { id: number }[], { n: number; byId: Map<number, unknown> }>();
function indexOf<T extends { id: number }>(list: readonly T[]): Map<number, T> {
  const known = indexes.get(list);
  if (known && known.n === list.length) return known.byId as Map<number, T>;
  const byId = new Map<number, T>();
  for (const x of list) if (!byId.has(x.id)) byId.set(x.id, x);
  indexes.set(list, { n: list.length, byId });
  return byId;
}

/** A user of the lookups by id (undefined: not among them). */
export const userById = (l: Lookups, id: number): Person | undefined => indexOf(l.users).get(id);

export const userName = (l: Lookups, id: number | null | undefined, none = 'Nobody') => {
  if (id == null) return none;
  const u = indexOf(l.users).get(id);
  return u ? u.name || u.email : `User #${id}`;
};
export const queueName = (l: Lookups, id: number | null | undefined) =>
  id == null ? '—' : (indexOf(l.queues).get(id)?.name ?? `Queue #${id}`);
export const teamName = (l: Lookups, id: number | null | undefined, none = 'No team') =>
  id == null ? none : (indexOf(l.teams).get(id)?.name ?? `Team #${id}`);

/** A query string from parameters, leaving out empty ones. */
export function qs(params: Record<string, string | number | undefined | null>): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') p.set(k, String(v));
  const s = p.toString();
  return s ? `?${s}` : '';
}

export const STATUS_LABEL: Record<string, string> = {
  new: 'New',
  open: 'Open',
  stalled: 'Stalled',
  resolved: 'Resolved',
  rejected: 'Rejected',
  deleted: 'Deleted',
};
