import type { Lookups } from '../domain/lookups.js';

/** "2026-11-21 09:41" in UTC: compact, sortable, unambiguous. */
export const when = (iso: string | null | undefined) => (iso ? `${iso.slice(0, 10)} ${iso.slice(11, 16)}` : '');

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
