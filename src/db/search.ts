import { sql, type SQL } from 'drizzle-orm';

/**
 * A condition on `tickets.id` matching tickets whose subject or any transaction body contains
 * `q`, case-insensitively. Three or more characters use the trigram FTS5 indexes (a quoted
 * phrase of trigrams is a substring match); shorter terms fall back to LIKE over the FTS
 * tables, which is a scan but only ever for one- and two-character searches.
 */
export function ticketTextMatch(q: string): SQL {
  if ([...q].length >= 3) {
    const phrase = `"${q.replaceAll('"', '""')}"`;
    return sql`(tickets.id IN (SELECT rowid FROM tickets_fts WHERE tickets_fts MATCH ${phrase})
      OR tickets.id IN (SELECT ticket_id FROM transactions WHERE id IN (SELECT rowid FROM transactions_fts WHERE transactions_fts MATCH ${phrase})))`;
  }
  const like = `%${q.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
  return sql`(tickets.subject LIKE ${like} ESCAPE '\\'
    OR tickets.id IN (SELECT ticket_id FROM transactions WHERE body LIKE ${like} ESCAPE '\\'))`;
}
