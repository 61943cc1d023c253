import { createContext, useContext } from 'hono/jsx';
import type { Lookups } from '../domain/lookups.js';

/**
 * The reader's IANA time zone (their settings page; `UTC` until they choose one). Provided once
 * around every render by the app (src/routes/respond.tsx `inZone`), read by `when`: screens show
 * times in the reader's zone, JSON keeps UTC ISO strings.
 */
export const TimeZone = createContext('UTC');

const formatters = new Map<string, Intl.DateTimeFormat>();
function formatter(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
    formatters.set(zone, f);
  }
  return f;
}

/** "2026-11-21 09:41" in the reader's time zone (UTC by default): compact, sortable, unambiguous. */
export function when(iso: string | null | undefined, zone: string = useContext(TimeZone)): string {
  if (!iso) return '';
  const utc = `${iso.slice(0, 10)} ${iso.slice(11, 16)}`;
  const date = new Date(iso);
  if (zone === 'UTC' || Number.isNaN(date.getTime())) return utc;
  let parts: Record<string, string>;
  try {
    parts = Object.fromEntries(formatter(zone).formatToParts(date).map((p) => [p.type, p.value]));
  } catch {
    return utc; // a zone this Node no longer knows: UTC rather than no date
  }
  return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}`;
}

export const userName = (l: Lookups, id: number | null | undefined, none = 'Nobody') => {
  if (id == null) return none;
  const u = l.users.find((x) => x.id === id);
  return u ? u.name || u.email : `User #${id}`;
};
export const queueName = (l: Lookups, id: number | null | undefined) => (id == null ? '—' : l.queues.find((q) => q.id === id)?.name ?? `Queue #${id}`);
export const teamName = (l: Lookups, id: number | null | undefined, none = 'No team') =>
  id == null ? none : l.teams.find((t) => t.id === id)?.name ?? `Team #${id}`;

/** A query string from parameters, leaving out empty ones. */
export function qs(params: Record<string, string | number | undefined | null>): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') p.set(k, String(v));
  const s = p.toString();
  return s ? `?${s}` : '';
}

export const STATUS_LABEL: Record<string, string> = {
  new: 'New', open: 'Open', stalled: 'Stalled', resolved: 'Resolved', rejected: 'Rejected', deleted: 'Deleted',
};
