import type Database from 'better-sqlite3';
import { sql, type SQL } from 'drizzle-orm';
import { containsPattern } from '../shared/like.js';
import { isStaffText, readableBy } from '../shared/staffText.js';
import { wordMatcher, type WordPlan } from '../shared/words.js';
import type { Db } from './handle.js';

/**
 * SQL functions registered on each connection by openDb:
 * - `hx_contains(text, needle)`: case-insensitive substring test for the rows of search_pending
 *   (the needle comes lower-cased).
 * - `hx_check(text, needle)`: the same test, for checking the candidates of an inexact index
 *   query (`TextSet.check`); it counts what it reads against the budget `checkTextWithin` sets.
 */
export function registerSearchFunctions(sqlite: Database.Database): void {
  sqlite.function('hx_contains', { deterministic: true }, (text: unknown, needle: unknown) =>
    typeof text === 'string' && typeof needle === 'string' && text.toLowerCase().includes(needle) ? 1 : 0,
  );
  /** The text `text` a check reads, counted against the budget `checkTextWithin` set (if any). */
  const charge = (text: string) => {
    const budget = budgets.get(sqlite);
    if (!budget) return;
    budget.left -= text.length + CHECK_CALL_COST;
    if (budget.left < 0) throw new TextCheckTooCostly();
  };
  sqlite.function('hx_check', (text: unknown, needle: unknown) => {
    if (typeof text !== 'string' || typeof needle !== 'string') return 0;
    charge(text);
    return text.toLowerCase().includes(needle) ? 1 : 0;
  });
  // The word search's forms of the same two (decision 084): `words` is a WordPlan's `key`.
  sqlite.function('hx_words', { deterministic: true }, (text: unknown, words: unknown) =>
    typeof text === 'string' && typeof words === 'string' && wordMatcher(words)(text) ? 1 : 0,
  );
  sqlite.function('hx_check_words', (text: unknown, words: unknown) => {
    if (typeof text !== 'string' || typeof words !== 'string') return 0;
    charge(text);
    return wordMatcher(words)(text) ? 1 : 0;
  });
}

/** What one hx_check call costs beyond its text, in characters' worth (row lookup, call). */
const CHECK_CALL_COST = 512;
const budgets = new WeakMap<Database.Database, { left: number }>();

/** Thrown when checking a search's candidates would read more text than its budget allows. */
export class TextCheckTooCostly extends Error {
  constructor() {
    super('The text check of this search exceeded its budget');
    this.name = 'TextCheckTooCostly';
  }
}

/**
 * Runs `fn` with at most `chars` characters of message text readable by hx_check (each call
 * also costs a fixed amount); past that hx_check throws TextCheckTooCostly out of `fn`.
 */
export function checkTextWithin<T>(db: Db, chars: number, fn: () => T): T {
  const budget = { left: chars };
  budgets.set(db.$client, budget);
  try {
    return fn();
  } catch (e) {
    // The query layer wraps what a SQL function throws; the spent budget says what happened.
    throw budget.left < 0 ? new TextCheckTooCostly() : e;
  } finally {
    budgets.delete(db.$client);
  }
}

/**
 * Moves text written since the last flush from search_pending into the FTS5 index, in one
 * transaction and one index segment (migration 0009; docs/decisions/011). At most `max` rows a
 * call; returns how many moved, so a caller can go on while there are more.
 */
export function flushSearch(db: Db, max = 2000): number {
  const sqlite = db.$client;
  if (!sqlite.prepare('SELECT 1 FROM search_pending LIMIT 1').get()) return 0; // the usual case: no write lock taken
  return sqlite
    .transaction(() => {
      const last = sqlite
        .prepare('SELECT max(id) AS id FROM (SELECT id FROM search_pending ORDER BY id LIMIT ?)')
        .get(max) as { id: number | bigint | null };
      if (last.id === null) return 0;
      const moved = sqlite
        .prepare(`INSERT INTO message_search(rowid, public_text, internal_text)
      SELECT id, public_text, internal_text FROM search_pending WHERE id <= ?`)
        .run(last.id).changes;
      // The word index (decision 084) takes the same rows in the same transaction, and their
      // terms (decision 092).
      sqlite
        .prepare(`INSERT INTO message_words(rowid, public_text, internal_text)
      SELECT id, public_text, internal_text FROM search_pending WHERE id <= ?`)
        .run(last.id);
      addTerms(sqlite, last.id);
      sqlite.prepare('DELETE FROM search_pending WHERE id <= ?').run(last.id);
      return moved;
    })
    .immediate();
}

/**
 * Adds the terms of the pending rows up to `lastId` to word_terms (migration 0037, decision 092):
 * the rows are tokenized once more, as message_words tokenizes them, by an FTS5 table of the
 * connection's own (temporary, rowids only), whose vocabulary is the batch's terms; then emptied.
 */
function addTerms(sqlite: Database.Database, lastId: number | bigint): void {
  // Made inside the flush's transaction, so a flush that fails (a full disk) takes them away again:
  // asked for each time, never remembered.
  sqlite.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS temp.hx_batch_words USING fts5(public_text, internal_text,
    content='', detail=none, tokenize='unicode61 remove_diacritics 2');
    CREATE VIRTUAL TABLE IF NOT EXISTS temp.hx_batch_terms USING fts5vocab(temp, hx_batch_words, row);`);
  sqlite
    .prepare(`INSERT INTO temp.hx_batch_words(rowid, public_text, internal_text)
      SELECT id, public_text, internal_text FROM search_pending WHERE id <= ?`)
    .run(lastId);
  sqlite.prepare('INSERT OR IGNORE INTO word_terms(term) SELECT term FROM temp.hx_batch_terms').run();
  sqlite.prepare("INSERT INTO temp.hx_batch_words(hx_batch_words) VALUES ('delete-all')").run();
}

/** A prefix that begins more terms than this is asked of FTS5 as a prefix (`"pa" *`). */
export const MAX_PREFIX_TERMS = 32;
/** Letters and digits FTS5's unicode61 folds as foldWord does (lower case only). */
const ASCII_WORD = /^[a-z0-9]+$/;

/**
 * The FTS5 query for a word plan (decision 084): its words in a row, the last one a prefix. The
 * prefix is written as the terms it begins, read from word_terms (decision 092) — `"a b" OR
 * "a bc"` — which FTS5 reads lazily in rowid order; only a prefix of more than MAX_PREFIX_TERMS
 * terms, or one with letters FTS5 might fold otherwise than foldWord (non-ASCII), is asked as
 * FTS5's prefix query, which builds the merged doclist of every such term first.
 */
export function wordQuery(db: Db, plan: WordPlan): string {
  const quote = (words: string[]) => `"${words.join(' ').replaceAll('"', '""')}"`;
  const last = plan.words[plan.words.length - 1];
  const prefixQuery = `${quote(plan.words)} *`;
  if (!ASCII_WORD.test(last)) return prefixQuery;
  const terms = prefixTerms(db).all(last, `${last}\u{10ffff}`, MAX_PREFIX_TERMS + 1) as string[];
  if (terms.length > MAX_PREFIX_TERMS) return prefixQuery;
  // No term begins with it: a query that matches nothing, as the prefix query would.
  if (terms.length === 0) return quote(plan.words);
  const head = plan.words.slice(0, -1);
  return terms.map((t) => quote([...head, t])).join(' OR ');
}

const prefixStatements = new WeakMap<Database.Database, Database.Statement>();
const prefixTerms = (db: Db): Database.Statement => {
  let st = prefixStatements.get(db.$client);
  if (!st) {
    st = db.$client.prepare('SELECT term FROM word_terms WHERE term >= ? AND term < ? LIMIT ?').pluck();
    prefixStatements.set(db.$client, st);
  }
  return st;
};

/**
 * A condition on `tickets.id` for a term of one or two characters (SPEC B4): trigrams cannot
 * find it, so LIKE over subjects and message bodies — a scan, accepted for such short terms.
 * `scoped`: the caller has already narrowed the tickets to a few (a requester's own), so the
 * bodies are read ticket by ticket (a correlated EXISTS) instead of all of them at once.
 * Internal notes count only with `includeComments`: requesters must not find tickets by words
 * they cannot see.
 */
export function ticketTextMatch(q: string, opts: { includeComments: boolean; scoped?: boolean }): SQL {
  // SQLite's LIKE folds ASCII letters only, so non-ASCII letters are tried in each case.
  const likes = caseVariants(q).map(containsPattern);
  const any = (column: SQL) =>
    sql.join(
      likes.map((like) => sql`${column} LIKE ${like} ESCAPE '\\'`),
      sql` OR `,
    );
  const visible = readableBy(opts.includeComments);
  const bodies = opts.scoped
    ? sql`EXISTS (SELECT 1 FROM transactions WHERE ticket_id = tickets.id AND (${any(sql`body`)})${visible})`
    : sql`tickets.id IN (SELECT ticket_id FROM transactions WHERE (${any(sql`body`)})${visible})`;
  return sql`(${any(sql`tickets.subject`)} OR ${bodies})`;
}

/**
 * A text search of three or more characters, as SQL:
 * - `ids`: a parenthesized query of the ids of the tickets whose subject or messages may contain
 *   q (column `id`, repeated once per matching message);
 * - `check`: when the index query is only a superset (q repeats a trigram, see `textPlan`), the
 *   exact test of one ticket (`id`) — `ticketContains`. It reads that ticket's text, so run it
 *   under `checkTextWithin`.
 */
export interface TextSet {
  ids: SQL;
  check?: (id: SQL) => SQL;
}

/**
 * The text set for q (three or more characters) through the index. Subjects and messages are
 * found through `message_search` (migration 0006: trigram FTS5, one row per message, rowid =
 * ticket_id << 20 | n, so the ticket id is the rowid shifted — no join); text not yet flushed
 * into the index (search_pending, at most ~100 ms of writes) is matched row by row with
 * hx_contains. With `requesterId`, only that customer's tickets (requester or Cc) are kept (before any check).
 * Internal notes count only with `includeComments`: requesters must not find tickets by words
 * they cannot see.
 */
export function textMatchSet(q: string, opts: { includeComments: boolean; requesterId?: number }): TextSet {
  const plan = textPlan(q);
  const phrases = plan.phrases.map((p) => `"${p.replaceAll('"', '""')}"`).join(' ');
  const query = opts.includeComments ? phrases : `{public_text} : (${phrases})`;
  const needle = q.toLowerCase();
  const pending = opts.includeComments
    ? sql`(hx_contains(public_text, ${needle}) OR hx_contains(internal_text, ${needle}))`
    : sql`hx_contains(public_text, ${needle})`;
  const check = plan.exact ? undefined : (id: SQL) => ticketContains(id, q, opts);
  const ids = sql`(SELECT rowid >> 20 AS id FROM message_search WHERE message_search MATCH ${query}
    UNION ALL SELECT id >> 20 AS id FROM search_pending WHERE ${pending})`;
  if (opts.requesterId === undefined) return { ids, check };
  return { check, ids: sql`(SELECT s.id AS id FROM ${ids} AS s WHERE s.id IN ${customersTickets(opts.requesterId)})` };
}

/**
 * The text set of a word search (decision 084): the tickets whose subject or messages hold q's
 * words in a row, the last one as a prefix, through the word index `message_words` (migration
 * 0032: unicode61, diacritics removed; same rowids and columns as message_search), plus the rows
 * not flushed yet (search_pending) tested with hx_words. Exact: there is nothing to check.
 */
export function wordMatchSet(
  db: Db,
  plan: WordPlan,
  opts: { includeComments: boolean; requesterId?: number },
): TextSet {
  const ids = sql`(SELECT rowid >> 20 AS id FROM message_words WHERE message_words MATCH ${wordIndexQuery(db, plan, opts.includeComments)}
    UNION ALL ${pendingWordIds(plan, opts.includeComments)})`;
  if (opts.requesterId === undefined) return { ids };
  return { ids: sql`(SELECT s.id AS id FROM ${ids} AS s WHERE s.id IN ${customersTickets(opts.requesterId)})` };
}

/** The FTS5 query of message_words for a plan: its words (wordQuery), in the public column only without `includeComments`. */
export function wordIndexQuery(db: Db, plan: WordPlan, includeComments: boolean): string {
  const words = wordQuery(db, plan);
  return includeComments ? words : `{public_text} : (${words})`;
}

/** The tickets of the rows not in the word index yet (search_pending) whose text holds the plan's words (hx_words): a query of column `id`. */
export function pendingWordIds(plan: WordPlan, includeComments: boolean): SQL {
  const pending = includeComments
    ? sql`(hx_words(public_text, ${plan.key}) OR hx_words(internal_text, ${plan.key}))`
    : sql`hx_words(public_text, ${plan.key})`;
  return sql`SELECT id >> 20 AS id FROM search_pending WHERE ${pending}`;
}

/**
 * The same set without the index, for a requester: their own tickets whose subject or public
 * messages contain q (with `words`: hold its words, decision 084), read and tested one by one
 * (exact; run under `checkTextWithin`). A requester has few tickets, so this costs what their own
 * tickets hold, whatever anyone else wrote — and never walks the index's lists for text they cannot see.
 */
export function ownTextSet(q: string, requesterId: number, words?: WordPlan): SQL {
  return sql`(SELECT w.ticket_id AS id FROM ticket_watchers w WHERE w.user_id = ${requesterId} AND w.role IN ('requester', 'cc')
    AND ${ticketContains(sql`w.ticket_id`, q, { includeComments: false }, words)})`;
}

/** The tickets a customer is a requester or Cc of (decision 019), through ticket_watchers_user_idx. */
export const customersTickets = (userId: number): SQL =>
  sql`(SELECT ticket_id FROM ticket_watchers WHERE user_id = ${userId} AND role IN ('requester', 'cc'))`;

/**
 * The exact test: ticket `id`'s subject, or one of its messages the reader may see, contains q
 * (hx_check), or with `words` holds its words (hx_check_words).
 */
export function ticketContains(id: SQL, q: string, opts: { includeComments: boolean }, words?: WordPlan): SQL {
  const test = (text: SQL) =>
    words ? sql`hx_check_words(${text}, ${words.key})` : sql`hx_check(${text}, ${q.toLowerCase()})`;
  const visible = readableBy(opts.includeComments);
  return sql`(${test(sql`(SELECT subject FROM tickets WHERE id = ${id})`)}
    OR EXISTS (SELECT 1 FROM transactions WHERE ticket_id = ${id} AND body IS NOT NULL${visible} AND ${test(sql`body`)}))`;
}

/** How q is asked of the trigram index: phrases that must all occur, and whether that is q exactly. */
export interface TextPlan {
  phrases: string[];
  exact: boolean;
}

/** At most this many phrases go to the index; the check decides the rest. */
const MAX_PHRASES = 3;

/**
 * A quoted FTS5 phrase of q's trigrams matches q exactly, but FTS5 checks a phrase by walking
 * the position lists of all its trigrams side by side, one iterator (and one copy of the list)
 * per trigram. A trigram repeated in q is walked once per repetition: "x" x 200 is 198 walks of
 * the same list, which over a message of a million x's is a billion steps and gigabytes. So q
 * is cut where a trigram would repeat into the maximal pieces without a repeated trigram, and
 * the index is asked for the (at most three) longest pieces that are not inside another: each
 * trigram is walked about once. Only a q without a repeated trigram (nearly every real search)
 * is then exact; otherwise the candidates are checked against the text itself.
 * A NUL cannot be written in an FTS5 query, so it ends pieces too (and forces the check).
 */
export function textPlan(q: string): TextPlan {
  const chars = [...q];
  // Folded as the index folds letters (case only); folding more only cuts more, which stays correct.
  const tri = chars.slice(0, -2).map((_, i) =>
    chars
      .slice(i, i + 3)
      .join('')
      .toUpperCase()
      .toLowerCase(),
  );
  const pieces: [number, number][] = []; // trigram index ranges [from, to)
  const last = new Map<string, number>();
  let from = 0;
  tri.forEach((t, i) => {
    if (t.includes('\0')) {
      if (i > from) pieces.push([from, i]);
      from = i + 1;
      return;
    }
    const seen = last.get(t);
    if (seen !== undefined && seen >= from) {
      pieces.push([from, i]);
      from = seen + 1;
    }
    last.set(t, i);
  });
  if (tri.length > from) pieces.push([from, tri.length]);
  const exact = pieces.length === 1 && pieces[0][0] === 0 && pieces[0][1] === tri.length;
  const texts = [...new Set(pieces.map(([a, b]) => chars.slice(a, b + 2).join('')))].sort(
    (a, b) => b.length - a.length,
  );
  const folded = texts.map((t) => t.toLowerCase());
  const kept = texts.filter((_, i) => !folded.some((other, j) => j < i && other.includes(folded[i])));
  return { phrases: kept.slice(0, MAX_PHRASES), exact };
}

/** The spellings of a short term that differ in the case of its non-ASCII letters ("üb" -> üb, Üb). */
function caseVariants(q: string): string[] {
  let out = [''];
  for (const ch of q) {
    const forms =
      ch < '\x80' ? [ch] : [...new Set([ch, ch.toLowerCase(), ch.toUpperCase()])].filter((f) => [...f].length === 1);
    out = out.flatMap((prefix) => forms.map((f) => prefix + f));
  }
  return out;
}

/**
 * SPEC D3 merge and unmerge (decision 076): ticket `id`'s text indexed afresh from its rows, once
 * entries moved to or from it (the index numbers a ticket's messages in its rowids, ticket_id << 20
 * | n, as the insert trigger of migration 0009 does). Inside the unit of work that moved them.
 */
export function reindexTicket(db: Db, id: number): void {
  db.run(sql`DELETE FROM message_search WHERE rowid BETWEEN ${id} << 20 AND (${id} << 20) + 1048575`);
  db.run(sql`DELETE FROM message_words WHERE rowid BETWEEN ${id} << 20 AND (${id} << 20) + 1048575`);
  db.run(sql`DELETE FROM search_pending WHERE id BETWEEN ${id} << 20 AND (${id} << 20) + 1048575`);
  db.run(
    sql`INSERT OR REPLACE INTO search_pending(id, public_text, internal_text) SELECT id << 20, subject, '' FROM tickets WHERE id = ${id}`,
  );
  db.run(sql`INSERT OR REPLACE INTO search_pending(id, public_text, internal_text)
    SELECT (t.ticket_id << 20) + (SELECT count(*) FROM transactions x WHERE x.ticket_id = t.ticket_id AND x.id <= t.id),
      CASE WHEN ${isStaffText(sql`t.type`)} THEN '' ELSE t.body END,
      CASE WHEN ${isStaffText(sql`t.type`)} THEN t.body ELSE '' END
    FROM transactions t WHERE t.ticket_id = ${id} AND t.body IS NOT NULL`);
}
