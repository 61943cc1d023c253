// LIKE patterns, written once for both stores. Each dialect's own case folding stays with it
// (SQLite: LIKE folds ASCII letters only, so its callers add hx_contains or case variants;
// PostgreSQL: ILIKE folds by the database's ctype).

/**
 * `s` matched as itself inside a LIKE pattern: its `%`, `_` and `\` escaped with a backslash —
 * PostgreSQL's default escape character, and SQLite's with `ESCAPE '\'` (which every SQLite
 * caller writes after the pattern).
 */
export const likeEscape = (s: string): string => s.replace(/[\\%_]/g, (ch) => `\\${ch}`);

/**
 * The pattern for "contains q" (SPEC B4 `q`): `%q%` with q's own `%`, `_` and `\` matching
 * themselves, as they do in SQLite's FTS5 phrase. On PostgreSQL, for terms of three or more
 * characters the pg_trgm GIN indexes of migration 0001_trigram_search serve it (with ILIKE).
 */
export const containsPattern = (q: string): string => `%${likeEscape(q)}%`;

/** The pattern for "starts with `prefix`". */
export const prefixPattern = (prefix: string): string => `${likeEscape(prefix)}%`;
