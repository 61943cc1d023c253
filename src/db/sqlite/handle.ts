import type Database from 'better-sqlite3';
import type { BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import type * as schema from './schema.js';

// The type every SQLite helper takes, in a file of its own (decision 046): the helpers
// (group commit, search, lists, people, checkpointer) and the client that wires them all
// together import it from here, so no helper imports the client back.

/** A drizzle handle on one of the store's two connections. */
export type Db = BetterSQLite3Database<typeof schema> & { $client: Database.Database };
