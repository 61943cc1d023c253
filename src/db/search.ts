import { sql, type SQL } from 'drizzle-orm';

/**
 * A condition on `tickets.id` matching tickets whose subject or messages contain `q`,
 * case-insensitively (SPEC B4), through the per-ticket trigram FTS5 document `ticket_search`
 * (migration 0004). Three or more characters: a quoted phrase of trigrams, i.e. a substring
 * match answered by the index. One or two characters: LIKE over the documents, a scan of the
 * search table (never of tickets or transactions), since trigrams need three. Internal notes
 * count only with `includeComments` — requesters must not find tickets by words they cannot see.
 */
export function ticketTextMatch(q: string, opts: { includeComments: boolean }): SQL {
  if ([...q].length >= 3) {
    const phrase = `"${q.replaceAll('"', '""')}"`;
    const query = opts.includeComments ? phrase : `{subject public_text} : ${phrase}`;
    return sql`tickets.id IN (SELECT rowid FROM ticket_search WHERE ticket_search MATCH ${query})`;
  }
  // SQLite's LIKE folds ASCII letters only, so non-ASCII letters are tried in each case.
  const likes = caseVariants(q).map((v) => `%${v.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`);
  const columns = opts.includeComments ? ['subject', 'public_text', 'internal_text'] : ['subject', 'public_text'];
  const any = sql.join(likes.flatMap((like) => columns.map((c) => sql`${sql.raw(c)} LIKE ${like} ESCAPE '\\'`)), sql` OR `);
  return sql`tickets.id IN (SELECT rowid FROM ticket_search WHERE ${any})`;
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
