import { sql, type SQL } from 'drizzle-orm';

/**
 * A condition on `tickets.id` matching tickets whose subject or any transaction body contains
 * `q`, case-insensitively. Three or more characters use the trigram FTS5 indexes (a quoted
 * phrase of trigrams is a substring match); shorter terms fall back to LIKE over the base
 * tables, which is a scan but only ever for one- and two-character searches. Internal notes
 * (`Comment` bodies) only count when `includeComments` is set: requesters never see them,
 * so they must not be able to search them either.
 */
export function ticketTextMatch(q: string, opts: { includeComments: boolean }): SQL {
  const visible = opts.includeComments ? sql`` : sql` AND type <> 'Comment'`;
  if ([...q].length >= 3) {
    const phrase = `"${q.replaceAll('"', '""')}"`;
    return sql`(tickets.id IN (SELECT rowid FROM tickets_fts WHERE tickets_fts MATCH ${phrase})
      OR tickets.id IN (SELECT ticket_id FROM transactions WHERE id IN (SELECT rowid FROM transactions_fts WHERE transactions_fts MATCH ${phrase})${visible}))`;
  }
  // SQLite's LIKE folds ASCII letters only, so non-ASCII letters are tried in each case.
  const likes = caseVariants(q).map((v) => `%${v.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`);
  const any = (column: SQL) => sql.join(likes.map((like) => sql`${column} LIKE ${like} ESCAPE '\\'`), sql` OR `);
  return sql`(${any(sql`tickets.subject`)}
    OR tickets.id IN (SELECT ticket_id FROM transactions WHERE (${any(sql`body`)})${visible}))`;
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
