import { and, eq, inArray, like, or } from 'drizzle-orm';
import type { Conn } from '../db/port.js';
import { tickets, users } from '../db/tables.js';
import type { NotifySettings } from '../scrips/config.js';
import type { ScripResult } from '../scrips/kinds.js';
import { normalizeEmail, type UserRow } from './users.js';
import { addWatcherIn, watchersOf } from './watchers.js';

// @mentions in internal notes (SPEC D6, docs/decisions/053). The token is the staff member's
// address, `@ann@example.com`, or its local part, `@ann`, when only one active staff member's
// address has it (the autocomplete of static/convo.js writes the short one when it is unique):
// it reads well in the note's mail as typed, and it outlives a change of name. A mentioned
// agent or admin becomes AdminCc of the ticket in the note's unit of work (an AddWatcher entry,
// as adding them by hand makes), before the note is recorded, so the note's scrips tell them of
// it as they tell every AdminCc, their "internal notes" preference permitting. Requesters,
// disabled people, unknown names and the writer themselves are plain text. Public replies are
// never read for mentions.

/** At most this many people are mentioned by one note (the rest stays text). */
export const MENTIONS_MAX = 20;

const MENTION = /(^|[\s([{,;:!?"'*_~])@([a-z0-9][a-z0-9._%+-]*(?:@[a-z0-9-]+(?:\.[a-z0-9-]+)+)?)/gi;

/** The text a mention may be in: not a quote of an earlier message, not code. */
function prose(body: string): string {
  let inFence = false;
  const out: string[] = [];
  for (const line of body.replace(/\r\n?/g, '\n').split('\n')) {
    if (/^ {0,3}(```|~~~)/.test(line)) {
      inFence = !inFence;
      continue;
    }
    if (inFence || /^ {0,3}>/.test(line)) continue;
    out.push(line.replace(/`[^`]*`/g, ' '));
  }
  return out.join('\n');
}

/** The mention tokens of a text, lower case, each once, in order: `ann` or `ann@example.com`. */
export function mentionTokens(body: string): string[] {
  const found = new Set<string>();
  for (const m of prose(body).matchAll(MENTION)) {
    const token = m[2].replace(/[._%+-]+$/, '').toLowerCase();
    if (token !== '') found.add(token);
    if (found.size >= MENTIONS_MAX) break;
  }
  return [...found];
}

const STAFF_ROLES = ['agent', 'admin'] as const;

/** The active staff the tokens name (a local part names someone only when it is unique among them). */
export async function mentionedStaff(conn: Conn, tokens: string[]): Promise<UserRow[]> {
  if (tokens.length === 0) return [];
  const full = tokens.filter((t) => t.includes('@')).map(normalizeEmail);
  const locals = tokens.filter((t) => !t.includes('@'));
  const candidates = await conn
    .select()
    .from(users)
    .where(
      and(
        inArray(users.role, STAFF_ROLES),
        eq(users.disabled, false),
        or(
          ...(full.length ? [inArray(users.email, full)] : []),
          // LIKE's `_` and `%` only widen the match; the exact local part is compared below.
          ...locals.map((l) => like(users.email, `${l}@%`)),
        ),
      ),
    );
  const out: UserRow[] = [];
  for (const token of tokens) {
    const matches = token.includes('@')
      ? candidates.filter((u) => u.email === token)
      : candidates.filter((u) => u.email.slice(0, u.email.lastIndexOf('@')) === token);
    if (matches.length === 1 && !out.some((u) => u.id === matches[0].id)) out.push(matches[0]);
  }
  return out;
}

/**
 * Inside a note's unit of work, before the note is recorded: makes the staff its body mentions
 * AdminCc (those who are not the writer, the owner or AdminCc already). Answers the scrip results
 * of the AddWatcher entries.
 */
export async function addMentioned(
  conn: Conn,
  writerId: number,
  ticketId: number,
  body: string,
  notify: NotifySettings,
): Promise<ScripResult[]> {
  const people = await mentionedStaff(conn, mentionTokens(body));
  if (people.length === 0) return [];
  const [ticket] = await conn.select({ owner: tickets.owner_id }).from(tickets).where(eq(tickets.id, ticketId));
  const adminCc = (await watchersOf(conn, [ticketId])).get(ticketId)?.admin_cc ?? [];
  const results: ScripResult[] = [];
  for (const u of people) {
    if (u.id === writerId || u.id === ticket?.owner || adminCc.includes(u.id)) continue;
    const r = await addWatcherIn(conn, writerId, ticketId, 'admin_cc', u.id, { notify });
    if (r) results.push(...r.scrip_results);
  }
  return results;
}
