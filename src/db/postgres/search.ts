/**
 * The ILIKE pattern for "contains q, in any case" (SPEC B4 `q` on PostgreSQL): `%q%` with q's
 * own `%`, `_` and `\` escaped (backslash is ILIKE's default escape character), so they match
 * themselves as they do in SQLite's FTS5 phrase and LIKE … ESCAPE '\' fallback. For terms of
 * three or more characters the pg_trgm GIN indexes of migration 0001_trigram_search serve it.
 */
export const containsPattern = (q: string): string => `%${q.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
