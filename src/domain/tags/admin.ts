import { asc, count, eq, sql } from 'drizzle-orm';
import { type Db, lockTicket, transaction } from '../../db/port.js';
import { ticketTags } from '../../db/tables.js';
import type { NotifySettings } from '../../scrips/config.js';
import { type Actor, requireAdmin, requireStaff } from '../actor.js';
import { AppError } from '../errors.js';
import { normalizeTag } from './normalize.js';
import { sortTags } from './rows.js';
import { addTagIn, removeTagIn } from './ticketTags.js';

// SPEC D3: the tags in use (GET /tags, staff), renamed or merged (PATCH /tags/:tag, admin) and
// removed from every ticket (DELETE /tags/:tag, admin). A tag exists while a ticket has it: there
// is no tag table (decision 074). A rename or a removal changes each ticket in its own unit of
// work, with its entries (DelTag, then AddTag of the new name unless the ticket has it): scrips
// and webhooks see each, and a long rename never holds the write lock for all its tickets.

export interface TagCount {
  name: string;
  count: number;
}

/** The most tags GET /tags answers. */
export const TAGS_LIST_MAX = 1000;

/** GET /tags: the tags in use with how many tickets have each, by name; `q`: those starting with it. */
export async function listTags(db: Db, actor: Actor, opts: { q?: string; limit?: number } = {}): Promise<TagCount[]> {
  requireStaff(actor);
  const q = opts.q?.normalize('NFC').trim().toLowerCase() ?? '';
  const rows = await db
    .select({ name: ticketTags.tag, count: count() })
    .from(ticketTags)
    // A prefix by its characters (both stores count them alike); no LIKE, so nothing in q is a wildcard.
    .where(q === '' ? undefined : sql`substr(${ticketTags.tag}, 1, ${[...q].length}) = ${q}`)
    .groupBy(ticketTags.tag)
    .orderBy(asc(ticketTags.tag))
    .limit(Math.min(opts.limit ?? TAGS_LIST_MAX, TAGS_LIST_MAX));
  const byName = new Map(rows.map((r) => [r.name, Number(r.count)]));
  return sortTags([...byName.keys()]).map((name) => ({ name, count: byName.get(name)! }));
}

const ticketsWith = async (db: Db, tag: string) =>
  (
    await db
      .select({ id: ticketTags.ticket_id })
      .from(ticketTags)
      .where(eq(ticketTags.tag, tag))
      .orderBy(asc(ticketTags.ticket_id))
  ).map((r) => r.id);

const noSuchTag = (tag: string) => new AppError('not_found', `No ticket has the tag "${tag}"`);

async function countOf(db: Db, tag: string): Promise<TagCount> {
  const [r] = await db.select({ n: count() }).from(ticketTags).where(eq(ticketTags.tag, tag));
  return { name: tag, count: Number(r?.n ?? 0) };
}

/**
 * PATCH /tags/:tag { name }: every ticket with the tag has the new name instead; a ticket that
 * had both keeps one (a merge). Each ticket: DelTag of the old name, AddTag of the new one
 * (none when it had it), by the admin, with its scrips.
 */
export async function renameTag(
  db: Db,
  actor: Actor,
  raw: string,
  input: { name: string },
  notify: NotifySettings,
): Promise<{ tag: TagCount; tickets: number }> {
  requireAdmin(actor);
  const from = normalizeTag(raw);
  const to = normalizeTag(input.name, 'name');
  const ids = await ticketsWith(db, from);
  if (ids.length === 0) throw noSuchTag(from);
  if (from === to) return { tag: await countOf(db, to), tickets: 0 };
  let changed = 0;
  for (const id of ids) {
    await transaction(db, async (tx) => {
      await lockTicket(tx, id);
      const opts = { notify, actorRole: actor.role };
      // Gone meanwhile (removed, or the ticket deleted for good): nothing to rename here.
      if (!(await removeTagIn(tx, actor.id, id, from, opts))) return;
      await addTagIn(tx, actor.id, id, to, opts);
      changed++;
    });
  }
  return { tag: await countOf(db, to), tickets: changed };
}

/** DELETE /tags/:tag: the tag off every ticket, each with its DelTag entry by the admin. */
export async function deleteTagEverywhere(
  db: Db,
  actor: Actor,
  raw: string,
  notify: NotifySettings,
): Promise<{ tickets: number }> {
  requireAdmin(actor);
  const tag = normalizeTag(raw);
  const ids = await ticketsWith(db, tag);
  if (ids.length === 0) throw noSuchTag(tag);
  let changed = 0;
  for (const id of ids) {
    await transaction(db, async (tx) => {
      await lockTicket(tx, id);
      if (await removeTagIn(tx, actor.id, id, tag, { notify, actorRole: actor.role })) changed++;
    });
  }
  return { tickets: changed };
}
