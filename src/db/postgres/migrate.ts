import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { drizzle } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import pg from 'pg';

// The SQL migrations live in the source tree (drizzle-kit writes them there, see
// drizzle.pg.config.ts); found from here whether this runs from src/ (tsx) or from dist/.
export const pgMigrationsFolder = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../../src/db/postgres/migrations',
);

/**
 * The advisory lock key held while migrating ("hxdesk" in ASCII): several processes starting
 * at once against one database apply each migration once, one after the other.
 */
export const MIGRATION_LOCK_KEY = '114849946706795';

/**
 * Refuses a database whose encoding is not UTF8 (SPEC C6): every text hxdesk keeps (mail in any
 * language, names, attachments' file names) must fit, and ILIKE and lower() must fold non-ASCII
 * letters. A SQL_ASCII or LATIN1 database would take the first such text with an error, or
 * (SQL_ASCII) store bytes without meaning; better to say so at start, before anything is written.
 */
export async function requireUtf8(client: pg.ClientBase): Promise<void> {
  const { rows } = await client.query<{ encoding: string; name: string }>(
    'SELECT pg_encoding_to_char(encoding) AS encoding, datname AS name FROM pg_database WHERE datname = current_database()',
  );
  const { encoding, name } = rows[0];
  if (encoding !== 'UTF8') {
    throw new Error(
      `the database "${name}" has the encoding ${encoding}; hxdesk needs a UTF8 database ` +
        `(create one with: CREATE DATABASE ${name} ENCODING 'UTF8' TEMPLATE template0)`,
    );
  }
}

/**
 * Applies the PostgreSQL migrations that `url`'s database does not have yet (drizzle's
 * node-postgres migrator; its bookkeeping is the table drizzle.__drizzle_migrations). Pending
 * migrations run in one transaction; with nothing pending this changes nothing. Uses one
 * connection of its own, closed before it returns. A database that is not UTF8 is refused
 * first (`requireUtf8`), so the store never starts on one.
 */
export async function migratePostgres(url: string, folder = pgMigrationsFolder): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await requireUtf8(client);
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    try {
      await migrate(drizzle(client), { migrationsFolder: folder });
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
    }
  } finally {
    await client.end();
  }
}
