import { describe, it } from 'vitest';

/** The store the suite runs on: HXDESK_TEST_STORE=postgres (the `postgres` project of vitest.config.ts) or SQLite. */
export const testStore = (): 'sqlite' | 'postgres' =>
  process.env.HXDESK_TEST_STORE === 'postgres' ? 'postgres' : 'sqlite';

// A test about one store belongs to that store's project only, the way vitest.config.ts gives
// whole files to one project: on the other store it is not registered at all (not reported as
// skipped — nothing was left undone there; the other store has its own test of the same behaviour).
const absent = ((..._args: unknown[]) => undefined) as unknown as typeof describe & typeof it;

/** A describe that exists only on the given store (SQLite-only: query plans, FTS5, the file, raw SQL). */
export const onlyOn = (store: 'sqlite' | 'postgres'): typeof describe => (testStore() === store ? describe : absent);

/** A test that exists only on the given store (it checks the database with `sqliteOf()` raw SQL, say). */
export const itOn = (store: 'sqlite' | 'postgres'): typeof it => (testStore() === store ? it : absent);
