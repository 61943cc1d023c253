// The tables the domain, the scrips and the events build their queries on: the one schema
// description (decision 025), written in SQLite's terms in src/db/sqlite/schema.ts, beside
// SQLite's migrations. The PostgreSQL tables are derived from it (src/db/postgres/schema.ts), and
// the PostgreSQL store runs queries built on these tables through its own dialect (decision 027).
// Everything outside src/db/sqlite/ imports the tables from here, never from that file.
export * from './sqlite/schema.js';
