// The one schema description (SPEC C6, decision 025), in SQLite's terms: drizzle-kit generates
// SQLite's migrations from it (drizzle.config.ts), src/db/postgres/schema.ts derives PostgreSQL's
// twin of every table, and everything outside src/db/sqlite/ reads it through src/db/tables.ts.
// The tables are written in ./schema/, a file per part of the product; timestamps, booleans and
// JSON are described in ./schema/columns.ts.

export * from './schema/people.js';
export * from './schema/config.js';
export * from './schema/tickets.js';
export * from './schema/mail.js';
