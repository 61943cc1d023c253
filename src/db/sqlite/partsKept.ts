import type { PageParts } from '../shared/pageParts.js';
import type { Db } from './handle.js';
import { perConnection } from './textHold.js';

// A list page's parts kept in memory by ticket (decision 113): a ticket's description, tags, custom
// values, own watchers and links, as the queries of src/db/shared/pageParts.ts read them, valid
// while the ticket's version (ticket_parts_version, moved by migration 0039's triggers on every
// write to those tables) and the configuration's (custom fields' keys and types are in the values)
// are the ones they were read under. Kept per read-only connection (each reader thread has its own,
// and two stores in one process never share one), filled from what it read in a snapshot of
// committed data: a unit of work's connection, whose reads may see a change that is later rolled
// back, neither keeps nor uses them. Up to MAX_BYTES a connection, the least recently used first out.

/** What one connection keeps at most, counting each text's length and a row's overhead. */
export const MAX_BYTES = 4 * 1024 * 1024;
const ROW_BYTES = 64;

type Rows<K extends keyof PageParts> = NonNullable<PageParts[K]>;
/** One ticket's parts, and the versions they were read under. */
export interface TicketParts {
  version: number;
  config: number;
  descriptions: Rows<'descriptions'>;
  tags: Rows<'tags'>;
  values: Rows<'values'>;
  watchers: Rows<'watchers'>;
  links: Rows<'links'>;
}

interface Kept {
  tickets: Map<number, TicketParts & { bytes: number }>;
  bytes: number;
}
const keptBy = new WeakMap<object, Kept>();

/** What connection `db` keeps (only a read-only connection keeps anything: undefined otherwise). */
export function keptOn(db: Db): Kept | undefined {
  const client = db.$client;
  if (!client.readonly) return undefined;
  let k = keptBy.get(client);
  if (!k) keptBy.set(client, (k = { tickets: new Map(), bytes: 0 }));
  return k;
}

const size = (p: TicketParts): number => {
  let n = 0;
  for (const r of p.descriptions) n += ROW_BYTES + (r.body?.length ?? 0);
  for (const r of p.tags) n += ROW_BYTES + (r.body?.length ?? 0);
  for (const r of p.values) n += ROW_BYTES + r.key.length + r.value.length;
  n += (p.watchers.length + p.links.length) * ROW_BYTES;
  return n;
};

/** The parts kept for ticket `id` at these versions (now the most recently used), or undefined. */
export function keptParts(k: Kept, id: number, version: number, config: number): TicketParts | undefined {
  const p = k.tickets.get(id);
  if (!p) return undefined;
  k.tickets.delete(id);
  if (p.version !== version || p.config !== config) {
    k.bytes -= p.bytes;
    return undefined;
  }
  k.tickets.set(id, p);
  return p;
}

/** Keeps ticket `id`'s parts, read under these versions; the least recently used go past MAX_BYTES. */
export function keepParts(k: Kept, id: number, parts: TicketParts): void {
  const old = k.tickets.get(id);
  if (old) {
    k.tickets.delete(id);
    k.bytes -= old.bytes;
  }
  const bytes = size(parts);
  if (bytes > MAX_BYTES / 8) return; // one ticket's long description would push out the rest
  // Handed to every list that shows the ticket: frozen, so no reader changes another's.
  for (const rows of [parts.descriptions, parts.tags, parts.values, parts.watchers, parts.links]) {
    for (const r of rows) Object.freeze(r);
    Object.freeze(rows);
  }
  k.tickets.set(id, { ...parts, bytes });
  k.bytes += bytes;
  for (const [oldest, p] of k.tickets) {
    if (k.bytes <= MAX_BYTES) break;
    k.tickets.delete(oldest);
    k.bytes -= p.bytes;
  }
}

const versionsOf = perConnection((db) =>
  db.$client
    .prepare('SELECT ticket_id, version FROM ticket_parts_version WHERE ticket_id IN (SELECT value FROM json_each(?))')
    .raw(true),
);
const configVersionOf = perConnection((db) =>
  db.$client.prepare('SELECT version FROM config_version WHERE id = 1').pluck(),
);

/** The versions of some tickets' parts (0: never written since migration 0039) and the configuration's, in the read's snapshot. */
export function partVersions(db: Db, idsJson: string): { versions: Map<number, number>; config: number } {
  const rows = versionsOf(db).all(idsJson) as [number, number][];
  return { versions: new Map(rows), config: (configVersionOf(db).get() as number | undefined) ?? 0 };
}
