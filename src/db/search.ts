import { sql, type SQL } from 'drizzle-orm';

/**
 * A condition on `tickets.id` matching tickets whose subject or messages contain `q`,
 * case-insensitively (SPEC B4). Three or more characters go through `message_search`
 * (migration 0006: trigram FTS5, one row per message, rowid = ticket_id << 20 | n): a quoted
 * phrase of trigrams is a substring match, and the ticket id is the rowid shifted — no join.
 * One or two characters cannot use trigrams: LIKE over subjects and message bodies, a scan,
 * accepted for such short terms. Internal notes count only with `includeComments`:
 * requesters must not find tickets by words they cannot see.
 */
export function ticketTextMatch(q: string, opts: { includeComments: boolean }): SQL {
  if ([...q].length >= 3) {
    const phrase = `"${q.replaceAll('"', '""')}"`;
    const query = opts.includeComments ? phrase : `{public_text} : ${phrase}`;
    return sql`tickets.id IN (SELECT rowid >> 20 FROM message_search WHERE message_search MATCH ${query})`;
  }
  // SQLite's LIKE folds ASCII letters only, so non-ASCII letters are tried in each case.
  const likes = caseVariants(q).map((v) => `%${v.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`);
  const any = (column: SQL) => sql.join(likes.map((like) => sql`${column} LIKE ${like} ESCAPE '\\'`), sql` OR `);
  const visible = opts.includeComments ? sql`` : sql` AND type <> 'Comment'`;
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
