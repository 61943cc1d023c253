import { and, asc, eq, inArray } from 'drizzle-orm';
import { changes, type Conn, type Db, lockAndReadTicketPair, preparedForIds, transaction } from '../db/port.js';
import { linksQuery } from '../db/shared/pageParts.js';
import { ticketLinks, tickets } from '../db/tables.js';
import type { NotifySettings } from '../scrips/config.js';
import type { ScripResult } from '../scrips/kinds.js';
import { type Actor, requireStaff } from './actor.js';
import { nowIso } from './clock.js';
import { AppError, invalid, notFound } from './errors.js';
import { categoryOf } from './lifecycles/categories.js';
import { recordTransactions } from './transactions.js';

type TicketRow = typeof tickets.$inferSelect;

// SPEC D3 links (RT's link types, docs/decisions/075): a row of ticket_links in the forward
// direction only (`depends_on`, `refers_to`, `parent_of`); the other side reads the same row by
// its target under the reverse name (`depended_on_by`, `referred_to_by`, `child_of`). Adding or
// removing one writes an AddLink / DelLink entry on both tickets, each under the name its
// ticket sees, through recordTransactions (scrips, live updates, webhooks).

export const LINK_TYPES = ['depends_on', 'refers_to', 'parent_of'] as const;
export type LinkType = (typeof LINK_TYPES)[number];
export const REVERSE_OF = { depends_on: 'depended_on_by', refers_to: 'referred_to_by', parent_of: 'child_of' } as const;
export type ReverseName = (typeof REVERSE_OF)[LinkType];
/** Every name a link is known by, as ticket JSON lists them. */
export const LINK_NAMES = [
  'depends_on',
  'depended_on_by',
  'refers_to',
  'referred_to_by',
  'parent_of',
  'child_of',
] as const;
export type LinkName = (typeof LINK_NAMES)[number];
export type LinksJson = Record<LinkName, number[]>;

/** The name the other ticket sees a link by. */
export function otherSide(name: LinkName): LinkName {
  for (const t of LINK_TYPES) {
    if (t === name) return REVERSE_OF[t];
    if (REVERSE_OF[t] === name) return t;
  }
  return name;
}
/** The stored type of a link by either name, and whether the ticket it is named from is its target. */
export function forwardOf(name: LinkName): { type: LinkType; reversed: boolean } {
  const type = LINK_TYPES.find((t) => t === name || REVERSE_OF[t] === name)!;
  return { type, reversed: type !== name };
}

/** How a link reads in a sentence: "#3 depends on #5". */
export const LINK_WORDS: Record<LinkName, string> = {
  depends_on: 'depends on',
  depended_on_by: 'is depended on by',
  refers_to: 'refers to',
  referred_to_by: 'is referred to by',
  parent_of: 'is parent of',
  child_of: 'is child of',
};

export const noLinks = (): LinksJson => ({
  depends_on: [],
  depended_on_by: [],
  refers_to: [],
  referred_to_by: [],
  parent_of: [],
  child_of: [],
});

const linksOfMany = preparedForIds((db, inIds) => linksQuery(db, { inIds }));
/** The links of a batch of tickets by name, ids sorted (ticket JSON's `links`). */
export async function linksOf(conn: Conn, ids: number[]): Promise<Map<number, LinksJson>> {
  // (One ticket's links come with its other stored parts: tickets/extras.ts, extrasOfOne.)
  return linksFrom(ids, ids.length === 0 ? [] : await linksOfMany(conn, ids));
}

/** linksOf's map from its rows. */
export function linksFrom(
  ids: number[],
  rows: { base_id: number; type: string; target_id: number }[],
): Map<number, LinksJson> {
  const out = new Map<number, LinksJson>(ids.map((id) => [id, noLinks()]));
  for (const r of rows) {
    const type = r.type as LinkType;
    out.get(r.base_id)?.[type].push(r.target_id);
    out.get(r.target_id)?.[REVERSE_OF[type]].push(r.base_id);
  }
  for (const links of out.values()) for (const name of LINK_NAMES) links[name].sort((a, b) => a - b);
  return out;
}

const MAX_WALK = 10_000;
/**
 * A path of `type` links from `from` to `to` (ids in order, both ends included), or null: what a
 * link `to` → `from` would close into a cycle. Walks breadth first, so the shortest one is named.
 */
async function pathOf(tx: Conn, type: LinkType, from: number, to: number): Promise<number[] | null> {
  const came = new Map<number, number>([[from, from]]);
  let frontier = [from];
  while (frontier.length > 0 && came.size < MAX_WALK) {
    const rows = await tx
      .select({ base: ticketLinks.base_id, target: ticketLinks.target_id })
      .from(ticketLinks)
      .where(and(eq(ticketLinks.type, type), inArray(ticketLinks.base_id, frontier)))
      .orderBy(asc(ticketLinks.base_id), asc(ticketLinks.target_id));
    const next: number[] = [];
    for (const r of rows) {
      if (came.has(r.target)) continue;
      came.set(r.target, r.base);
      if (r.target === to) {
        const path = [to];
        for (let at = to; at !== from; at = came.get(at)!) path.unshift(came.get(at)!);
        return path;
      }
      next.push(r.target);
    }
    frontier = next;
  }
  return null;
}

export interface LinkChange {
  /** The ticket the change was asked on, as it is now. */
  ticket: TicketRow;
  scrip_results: ScripResult[];
  /** false: the link was there already, nothing was written. */
  changed: boolean;
}

export interface LinkInput {
  /** Any of the six names: `child_of 5` is stored as 5 `parent_of` this ticket. */
  type: LinkName;
  ticket_id: number;
}

/** POST /tickets/:id/links (staff): the link and an AddLink entry on both tickets. */
export async function addLink(
  db: Db,
  actor: Actor,
  id: number,
  input: LinkInput,
  notify: NotifySettings,
): Promise<LinkChange> {
  requireStaff(actor);
  return transaction(db, (tx) => addLinkIn(tx, actor.id, id, input, notify), { op: 'addLink' });
}

/**
 * Inside the caller's unit of work: locks both tickets (id order), checks, links and writes the
 * entries. `split`: the message a split made the link for (kept as the entries' `old_value`).
 */
export async function addLinkIn(
  tx: Conn,
  actorId: number,
  id: number,
  input: LinkInput,
  notify: NotifySettings,
  split?: number,
): Promise<LinkChange> {
  const other = input.ticket_id;
  if (other === id) throw invalid('ticket_id', `Ticket #${id} cannot be linked to itself`);
  const [mine, theirs] = await lockAndReadTicketPair(tx, id, other);
  if (!mine) throw notFound('Ticket', id);
  if (!theirs) throw invalid('ticket_id', `Ticket #${other} does not exist`);
  if (mine.merged_into !== null)
    throw new AppError('conflict', `Ticket #${id} was merged into #${mine.merged_into}: link that one instead`);
  if (theirs.merged_into !== null)
    throw invalid('ticket_id', `Ticket #${other} was merged into #${theirs.merged_into}: link that one instead`);
  const { type, reversed } = forwardOf(input.type);
  const [base, target] = reversed ? [other, id] : [id, other];
  const now = nowIso(tx);
  const inserted = await tx
    .insert(ticketLinks)
    .values({ base_id: base, type, target_id: target, creator_id: actorId, created_at: now })
    .onConflictDoNothing()
    .returning({ base: ticketLinks.base_id });
  if (inserted.length === 0) return { ticket: mine, scrip_results: [], changed: false };
  if (type !== 'refers_to') {
    // The new link base → target closes a cycle when target already reaches base.
    const path = await pathOf(tx, type, target, base);
    if (path) {
      const cycle = [base, ...path];
      const words = cycle
        .slice(0, -1)
        .map((from, i) => `#${from} ${LINK_WORDS[type]} #${cycle[i + 1]}`)
        .join(', ');
      throw invalid('ticket_id', `That would make a cycle of ${type} links: ${words}`);
    }
  }
  return writeEntries(tx, 'AddLink', actorId, mine, other, input.type, now, notify, split);
}

/** DELETE /tickets/:id/links/:type/:ticketId (staff; `type` by either name): DelLink on both. */
export async function removeLink(
  db: Db,
  actor: Actor,
  id: number,
  name: LinkName,
  other: number,
  notify: NotifySettings,
): Promise<LinkChange> {
  requireStaff(actor);
  return transaction(
    db,
    async (tx) => {
      const [mine, theirs] = await lockAndReadTicketPair(tx, id, other);
      if (!mine) throw notFound('Ticket', id);
      const { type, reversed } = forwardOf(name);
      const [base, target] = reversed ? [other, id] : [id, other];
      const gone = await tx
        .delete(ticketLinks)
        .where(and(eq(ticketLinks.base_id, base), eq(ticketLinks.type, type), eq(ticketLinks.target_id, target)));
      if (!theirs || changes(gone) === 0)
        throw new AppError('not_found', `Ticket #${id} has no link ${name} #${other}`);
      return writeEntries(tx, 'DelLink', actor.id, mine, other, name, nowIso(tx), notify);
    },
    { op: 'removeLink' },
  );
}

/** The entry on each ticket, under the name it sees the link by; both tickets touched. */
async function writeEntries(
  tx: Conn,
  kind: 'AddLink' | 'DelLink',
  actorId: number,
  mine: TicketRow,
  other: number,
  name: LinkName,
  now: string,
  notify: NotifySettings,
  split?: number,
): Promise<LinkChange> {
  await tx
    .update(tickets)
    .set({ updated_at: now })
    .where(inArray(tickets.id, [mine.id, other]));
  const marker = split === undefined ? null : String(split);
  const entry = (n: LinkName, to: number) =>
    kind === 'AddLink'
      ? { type: kind, field: n, new_value: String(to), old_value: marker }
      : { type: kind, field: n, old_value: String(to) };
  const a = await recordTransactions(tx, mine.id, actorId, [entry(name, other)], now, { notify });
  const b = await recordTransactions(tx, other, actorId, [entry(otherSide(name), mine.id)], now, { notify });
  const row = (await tx.select().from(tickets).where(eq(tickets.id, mine.id)))[0];
  return { ticket: row, scrip_results: [...a.scrip_results, ...b.scrip_results], changed: true };
}

// ---- SPEC D3: the resolve check ------------------------------------------------------------

export interface OpenDependency {
  id: number;
  subject: string;
  status: string;
}

/** The tickets `id` depends on that are not in an inactive category of their own queue's lifecycle. */
export async function openDependencies(conn: Conn, id: number): Promise<OpenDependency[]> {
  const rows = await conn
    .select({ id: tickets.id, subject: tickets.subject, status: tickets.status, queue_id: tickets.queue_id })
    .from(ticketLinks)
    .innerJoin(tickets, eq(tickets.id, ticketLinks.target_id))
    .where(and(eq(ticketLinks.base_id, id), eq(ticketLinks.type, 'depends_on')))
    .orderBy(asc(tickets.id));
  const open: OpenDependency[] = [];
  for (const r of rows)
    if ((await categoryOf(conn, r.queue_id, r.status)) !== 'inactive')
      open.push({ id: r.id, subject: r.subject, status: r.status });
  return open;
}

/** SPEC D3: a move to an inactive status refused while the ticket depends on tickets not done (409). */
export class DependenciesOpen extends AppError {
  constructor(
    readonly ticketId: number,
    readonly target: string,
    readonly open: OpenDependency[],
  ) {
    const n = open.length === 1 ? 'a ticket that is' : `${open.length} tickets that are`;
    super(
      'conflict',
      `Ticket #${ticketId} depends on ${n} not done: ${open.map((t) => `#${t.id}`).join(', ')}. Nothing was changed: finish ${open.length === 1 ? 'it' : 'them'} first, or send the change again with force: true`,
      open.map((t) => ({ path: 'depends_on', message: `#${t.id} “${t.subject}” is ${t.status}` })),
      { open_dependencies: open },
    );
  }
}

/**
 * Called by a person's status change (PATCH, the status form, bulk) inside its unit of work,
 * before writing: moving into an inactive category while a dependency is not inactive is
 * refused unless `force`. Automatic moves (scrips, a customer's reply, snooze) never come here.
 */
export async function checkDependencies(
  conn: Conn,
  id: number,
  queueId: number,
  status: string,
  force: boolean | undefined,
): Promise<void> {
  if (force) return;
  if ((await categoryOf(conn, queueId, status)) !== 'inactive') return;
  const open = await openDependencies(conn, id);
  if (open.length > 0) throw new DependenciesOpen(id, status, open);
}
