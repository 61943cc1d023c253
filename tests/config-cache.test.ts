import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cachedConfig, configChanged, withConfigReads } from '../src/db/configCache.js';
import { first, type Store, transaction } from '../src/db/port.js';
import { openStore } from '../src/db/store.js';
import { configVersion } from '../src/db/tables.js';
import { createMigratedDatabase, releasePostgres } from './helpers/postgres.js';
import { testStore } from './helpers/store.js';

// Decision 067, the process's configuration cache on the store it runs on (both stores): what a
// unit of work keeps, and when it keeps nothing. A unit of work that changed configuration and
// failed leaves nothing kept; while a change of this process is not committed, nothing is kept
// (on SQLite a later unit of work in the same group commit reads that change before it commits);
// two stores in one process keep their own.

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'hxdesk-config-cache-'));
let n = 0;
const open = async (): Promise<Store> =>
  testStore() === 'postgres'
    ? openStore({ DATABASE_URL: await createMigratedDatabase(), dbPath: '' })
    : openStore({ dbPath: path.join(tmp, `store-${++n}.db`) });

let store: Store;
let other: Store;
beforeAll(async () => {
  store = await open();
  other = await open();
});
afterAll(async () => {
  await store?.close();
  await other?.close();
  if (testStore() === 'postgres') await releasePostgres();
  fs.rmSync(tmp, { recursive: true, force: true });
});

const version = async (s: Store) =>
  (await first(s.db.select().from(configVersion).where(eq(configVersion.id, 1))))?.version ?? 0;

/** Reads `key` through the cache in a unit of work of its own; counts the loads. */
let loads = 0;
const readKey = (s: Store, key: string) =>
  transaction(s.db, (tx) =>
    cachedConfig(tx, key, async () => {
      loads++;
      return { key };
    }),
  );

describe('the configuration cache of a store (decision 067)', () => {
  it('keeps a value for the version it was read under, and reads it again after a bump', async () => {
    const v = await version(store);
    loads = 0;
    await readKey(store, 'probe');
    await readKey(store, 'probe');
    expect(loads).toBe(1);
    expect(store.config.get('probe', v)).toEqual({ key: 'probe' });
    await transaction(store.db, (tx) => configChanged(tx));
    expect(await version(store)).toBe(v + 1);
    await readKey(store, 'probe');
    expect(loads).toBe(2);
  });

  it('a unit of work that changed configuration and failed leaves nothing kept, and the version as it was', async () => {
    await readKey(store, 'kept');
    const v = await version(store);
    expect(store.config.get('kept', v)).toBeDefined();
    await expect(
      transaction(store.db, async (tx) => {
        await configChanged(tx);
        throw new Error('the admin request failed');
      }),
    ).rejects.toThrow('the admin request failed');
    expect(await version(store)).toBe(v);
    expect(store.config.get('kept', v)).toBeUndefined();
    expect(store.config.pending).toBe(0);
    loads = 0;
    await readKey(store, 'kept');
    await readKey(store, 'kept');
    expect(loads).toBe(1); // kept again
  });

  it('keeps nothing a unit of work reads while a change of this process is not committed', async () => {
    const v = await version(store);
    const changing = transaction(store.db, async (tx) => {
      await configChanged(tx);
      // PostgreSQL: another unit of work runs now, on its own connection, while this one is open.
      if (testStore() === 'postgres') await readKey(store, 'meanwhile');
    });
    // SQLite: in the same group commit, after the change (which it can read before it commits).
    const reading = testStore() === 'sqlite' ? readKey(store, 'meanwhile') : Promise.resolve();
    await Promise.all([changing, reading]);
    expect(store.config.get('meanwhile', v)).toBeUndefined();
    expect(store.config.get('meanwhile', v + 1)).toBeUndefined();
    expect(store.config.pending).toBe(0);
    await readKey(store, 'meanwhile');
    expect(store.config.get('meanwhile', v + 1)).toBeDefined();
  });

  // Issue 32: a GET reads configuration through the cache too, outside units of work.
  it('a read outside a unit of work uses the cache only in a GET (withConfigReads), at the version it reads', async () => {
    const outside = (key: string) =>
      cachedConfig(store.db, key, async () => {
        loads++;
        return { key };
      });
    loads = 0;
    await outside('page');
    await outside('page');
    expect(loads).toBe(2); // not in a GET: every time, as before
    await withConfigReads(async () => {
      await outside('page');
      await outside('page');
    });
    await withConfigReads(() => outside('page'));
    expect(loads).toBe(3); // once for the version, then kept
    // What a GET kept, a unit of work uses too.
    await readKey(store, 'page');
    expect(loads).toBe(3);
    await transaction(store.db, (tx) => configChanged(tx));
    await withConfigReads(() => outside('page'));
    expect(loads).toBe(4); // a new version: loaded again
    // A GET that changes configuration reads it afresh from then on, and keeps nothing.
    const v = await version(store);
    await withConfigReads(async () => {
      await outside('changed');
      await transaction(store.db, (tx) => configChanged(tx));
      await outside('changed');
      await outside('changed');
    });
    expect(loads).toBe(7);
    expect(store.config.get('changed', v + 1)).toBeUndefined();
  });

  it('two stores in one process keep their own', async () => {
    await readKey(store, 'mine');
    expect(store.config).not.toBe(other.config);
    expect(other.config.get('mine', await version(other))).toBeUndefined();
  });
});
