import { describe, it } from 'vitest';

/** The store the suite runs on: HXDESK_TEST_STORE=postgres (the `postgres` project of vitest.config.ts) or SQLite. */
export const testStore = (): 'sqlite' | 'postgres' => (process.env.HXDESK_TEST_STORE === 'postgres' ? 'postgres' : 'sqlite');

/** A describe that runs only on the given store (SQLite-only: query plans, FTS5, the file, raw SQL). */
export const onlyOn = (store: 'sqlite' | 'postgres') => describe.skipIf(testStore() !== store);

/** A test that runs only on the given store (it checks the database with `sqliteOf()` raw SQL, say). */
export const itOn = (store: 'sqlite' | 'postgres') => it.skipIf(testStore() !== store);
