import Database from 'better-sqlite3';
import { registerSearchFunctions } from './search.js';

// Opening one connection, in a file of its own (decision 046): the client opens the writer and
// the reader with it, and each reader thread (./listWorker.ts) its own, without importing the
// client (which starts those threads).

/** One connection with hxdesk's settings and SQL functions (the reader threads open theirs with it too). */
export function connect(file: string, readonly: boolean): Database.Database {
  const sqlite = new Database(file, { readonly });
  cacheStatements(sqlite);
  if (!readonly) {
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('synchronous = NORMAL');
  }
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('cache_size = -16000');
  sqlite.pragma('temp_store = MEMORY');
  registerSearchFunctions(sqlite);
  return sqlite;
}

/**
 * drizzle prepares every query anew, and preparing is the single largest cost of a small
 * query in SQLite. Identical SQL text gets the same compiled statement back (an LRU of 1000),
 * reset to better-sqlite3's default result mode, since drizzle switches some to raw rows.
 */
function cacheStatements(sqlite: Database.Database, max = 1000): void {
  const cache = new Map<string, Database.Statement>();
  const prepare = sqlite.prepare.bind(sqlite);
  sqlite.prepare = ((source: string) => {
    let stmt = cache.get(source);
    if (stmt) {
      cache.delete(source); // re-inserted below: most recently used last
    } else {
      stmt = prepare(source);
      if (cache.size >= max) cache.delete(cache.keys().next().value!);
    }
    cache.set(source, stmt);
    if (stmt.reader) stmt.raw(false);
    return stmt;
  }) as typeof sqlite.prepare;
}
