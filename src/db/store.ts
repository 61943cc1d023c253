import { closeStore, type Db } from './port.js';

export type { Db };
import { openDb as openSqlite, sqliteOf } from './sqlite/client.js';

export { sqliteOf };

// The store factory (docs/decisions/024): the one module that knows the implementations.

/** Opens the SQLite store in `file` (creating and migrating it); returns its read handle. */
export function openDb(file: string): Db {
  return openSqlite(file);
}

export async function closeDb(db: Db): Promise<void> {
  await closeStore(db);
}

/** Online backup and restore of the SQLite store (SPEC C6; `hxdesk backup`, `hxdesk restore`). */
export { backupDatabase, restoreDatabase, StoreError } from './sqlite/backup.js';
