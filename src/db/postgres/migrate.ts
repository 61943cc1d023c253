import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { drizzle } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import pg from 'pg';

// The SQL migrations live in the source tree (drizzle-kit writes them there, see
// drizzle.pg.config.ts); found from here whether this runs from src/ (tsx) or from dist/.
export const pgMigrationsFolder = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../src/db/postgres/migrations');

/**
 * The advisory lock key held while migrating ("hxdesk" in ASCII): several processes starting
 * at once against one database apply each migration once, one after the other.
 */
export const MIGRATION_LOCK_KEY = '114849946706795';

/**
 * Applies the PostgreSQL migrations that `url`'s database does not have yet (drizzle's
 * node-postgres migrator; its bookkeeping is the table drizzle.__drizzle_migrations). Pending
 * migrations run in one transaction; with nothing pending this changes nothing. Uses one
 * connection of its own, closed before it returns.
 */
export async function migratePostgres(url: string, folder = pgMigrationsFolder): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
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
