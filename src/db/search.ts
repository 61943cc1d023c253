import type Database from 'better-sqlite3';
import { sql, type SQL } from 'drizzle-orm';
import type { Db } from './client.js';

/**
 * `hx_contains(text, needle)`: case-insensitive substring test for the rows of search_pending
 * (the needle comes lower-cased). Registered on each connection by openDb.
 */
export function registerSearchFunctions(sqlite: Database.Database): void {
  sqlite.function('hx_contains', { deterministic: true }, (text: unknown, needle: unknown) =>
    typeof text === 'string' && typeof needle === 'string' && text.toLowerCase().includes(needle) ? 1 : 0);
}

/**
 * Moves text written since the last flush from search_pending into the FTS5 index, in one
 * transaction and one index segment (migration 0009; docs/decisions/011). At most `max` rows a
 * call; returns how many moved, so a caller can go on while there are more.
 */
export function flushSearch(db: Db, max = 2000): number {
  const sqlite = db.$client;
  if (!sqlite.prepare('SELECT 1 FROM search_pending LIMIT 1').get()) return 0; // the usual case: no write lock taken
  return sqlite.transaction(() => {
    const last = sqlite.prepare('SELECT max(id) AS id FROM (SELECT id FROM search_pending ORDER BY id LIMIT ?)').get(max) as { id: number | bigint | null };
    if (last.id === null) return 0;
    const moved = sqlite.prepare(`INSERT INTO message_search(rowid, public_text, internal_text)
      SELECT id, public_text, internal_text FROM search_pending WHERE id <= ?`).run(last.id).changes;
    sqlite.prepare('DELETE FROM search_pending WHERE id <= ?').run(last.id);
    return moved;
  }).immediate();
}

/**
 * A condition on `tickets.id` matching tickets whose subject or messages contain `q`,
 * case-insensitively (SPEC B4). Three or more characters go through `message_search`
 * (migration 0006: trigram FTS5, one row per message, rowid = ticket_id << 20 | n): a quoted
 * phrase of trigrams is a substring match, and the ticket id is the rowid shifted — no join.
 * Text not yet flushed into the index (search_pending, at most ~100 ms of writes) is matched
 * row by row with hx_contains.
 * One or two characters cannot use trigrams: LIKE over subjects and message bodies, a scan,
 * accepted for such short terms. Internal notes count only with `includeComments`:
 * requesters must not find tickets by words they cannot see.
 */
export function ticketTextMatch(q: string, opts: { includeComments: boolean }): SQL {
  if ([...q].length >= 3) return sql`tickets.id IN ${textMatchSet(q, opts)}`;
  // SQLite's LIKE folds ASCII letters only, so non-ASCII letters are tried in each case.
  const likes = caseVariants(q).map((v) => `%${v.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`);
  const any = (column: SQL) => sql.join(likes.map((like) => sql`${column} LIKE ${like} ESCAPE '\\'`), sql` OR `);
  const visible = opts.includeComments ? sql`` : sql` AND type <> 'Comment'`;
  return sql`(${any(sql`tickets.subject`)}
    OR tickets.id IN (SELECT ticket_id FROM transactions WHERE (${any(sql`body`)})${visible}))`;
}

/**
 * For q of three or more characters: a subquery of the ids (column `id`, repeated once per
 * matching message) of the tickets whose subject or messages contain q.
 */
export function textMatchSet(q: string, opts: { includeComments: boolean }): SQL {
  const phrase = `"${q.replaceAll('"', '""')}"`;
  const query = opts.includeComments ? phrase : `{public_text} : ${phrase}`;
  const needle = q.toLowerCase();
  const pending = opts.includeComments
    ? sql`hx_contains(public_text, ${needle}) OR hx_contains(internal_text, ${needle})`
    : sql`hx_contains(public_text, ${needle})`;
  return sql`(SELECT rowid >> 20 AS id FROM message_search WHERE message_search MATCH ${query}
    UNION ALL SELECT id >> 20 AS id FROM search_pending WHERE ${pending})`;
}

/** The spellings of a short term that differ in the case of its non-ASCII letters ("üb" -> üb, Üb). */
function caseVariants(q: string): string[] {
  let out = [''];
  for (const ch of q) {
    const forms = ch < '\x80' ? [ch] : [...new Set([ch, ch.toLowerCase(), ch.toUpperCase()])].filter((f) => [...f].length === 1);
    out = out.flatMap((prefix) => forms.map((f) => prefix + f));
  }
  return out;
}
