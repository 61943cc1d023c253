import { AsyncLocalStorage } from 'node:async_hooks';
import { eq, sql } from 'drizzle-orm';
import { type ConfigCache, type Conn, prepared, transaction, type Tx, type UnitOfWork } from './port.js';
import {
  appSettings,
  calendars,
  configVersion,
  lifecycles,
  customFieldQueues,
  customFields,
  queues,
  queueWatchers,
  scrips,
  slaPolicies,
  teamMembers,
  teams,
  templates,
} from './tables.js';
import { unitState } from './unitMemo.js';

// Decision 067: the configuration every write reads (scrips, templates, queues and their
// watchers, our own addresses, custom fields, teams and their members) is kept by the process,
// on its store, between units of work — and used only by a unit of work that read the same
// configuration version (`config_version`, one row) the entry was loaded under. Every unit of
// work that changes any of it bumps that version in the same unit of work (`configChanged`), and
// every unit of work learns the version with a statement it sends anyway (PostgreSQL: its ticket
// lock, its named lock, or the statement that takes its transaction id; SQLite: one small read).
// On READ COMMITTED that read sees every change committed before it, whichever process made it:
// nothing is ever stale, and nothing needs to be told to forget.

/**
 * The tables whose rows the cache keeps (by the names modules import them as): a module that
 * writes to one calls `configChanged` (or writes in `configTransaction`) in the same function
 * (tests/architecture.test.ts checks).
 */
export const CACHED_TABLES = {
  lifecycles,
  queues,
  queueWatchers,
  scrips,
  templates,
  customFields,
  customFieldQueues,
  teams,
  teamMembers,
  appSettings,
  calendars,
  slaPolicies,
};

/** At most this many entries (configuration objects by id): past it the cache starts afresh. */
const MAX_ENTRIES = 5_000;

export function configCache(): ConfigCache {
  let kept = -1;
  let entries = new Map<string, unknown>();
  return {
    pending: 0,
    get: (key, version) => (version === kept ? entries.get(key) : undefined),
    set(key, version, value) {
      if (version < kept) return;
      if (version > kept || entries.size >= MAX_ENTRIES) {
        kept = version;
        entries = new Map();
      }
      entries.set(key, value);
    },
    clear() {
      kept = -1;
      entries = new Map();
    },
  };
}

/** A value frozen all the way down: what the cache hands out is shared by every unit of work. */
function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value) && !ArrayBuffer.isView(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

const versionRow = prepared((db) =>
  db.select({ v: configVersion.version }).from(configVersion).where(eq(configVersion.id, 1)),
);

/** The version of the configuration a unit of work reads (read once per attempt, noted by its ticket or named lock). */
async function versionIn(tx: Tx): Promise<number> {
  const u = unitState();
  if (u?.version !== undefined) return u.version;
  const read = tx.store.work.readConfigVersion;
  const v = read ? await read(tx) : ((await versionRow(tx).get())?.v ?? 0);
  if (u && u.version === undefined) u.version = v;
  return u?.version ?? v;
}

/**
 * Configuration read through the process's cache: inside a unit of work, `load()` runs only when
 * the store keeps no value of `key` for the version this unit of work reads (and once per unit of
 * work); outside one (a page, a list), every time. `key` names one configuration object by its
 * id (`template:3`) or one whole kind (`scrips`), never something a request chooses freely.
 * Undefined (a missing object) is never kept. The value handed out is frozen: never change it.
 */
export async function cachedConfig<T>(conn: Conn, key: string, load: () => Promise<T>): Promise<T> {
  if (!conn.store.work.isTx(conn)) {
    const r = reads.getStore();
    if (!r || r.changed) return load();
    let p = r.memo.get(key) as Promise<T> | undefined;
    if (!p) r.memo.set(key, (p = fromCacheOutside(conn, r, key, load)));
    return p;
  }
  const u = unitState();
  if (!u) return load();
  let p = u.memo.get(key) as Promise<T> | undefined;
  if (!p) u.memo.set(key, (p = fromCache(conn, u.changed, key, load)));
  return p;
}

async function fromCache<T>(tx: Tx, changed: boolean, key: string, load: () => Promise<T>): Promise<T> {
  // A unit of work that changed configuration reads its own, not yet committed: never kept.
  if (changed) return load();
  return keptOrLoaded(tx.store.config, await versionIn(tx), key, load);
}

/**
 * The value kept for `key` at `version`, else `load()`, kept when no unit of work of this process
 * was changing configuration meanwhile (on SQLite a unit of work in the same group commit may read
 * another's change before it commits) and `stillValid()` says so.
 */
async function keptOrLoaded<T>(
  cache: ConfigCache,
  version: number,
  key: string,
  load: () => Promise<T>,
  stillValid: () => boolean = () => true,
): Promise<T> {
  const hit = cache.get(key, version);
  if (hit !== undefined) return hit as T;
  const pendingBefore = cache.pending;
  const value = await load();
  if (value !== undefined && pendingBefore === 0 && cache.pending === 0 && stillValid())
    cache.set(key, version, deepFreeze(value));
  return value;
}

/**
 * A read outside a unit of work that uses the cache (issue 32): a GET's pages and lists read the
 * configuration's version once, with one statement (on its first `cachedConfig`), and each key
 * as that version's kept value — the lookups of every page (queues, teams and their members,
 * custom fields, SLA policies) were five statements a request, each a round trip on PostgreSQL.
 * The version is read before anything it names: a change committed after it is either seen by the
 * loads (a value newer than its version says, which the next version's readers never use) or by
 * the next request. A unit of work of the request that changes configuration ends it (`changed`).
 */
interface ReadScope {
  memo: Map<string, Promise<unknown>>;
  version?: Promise<number | undefined>;
  changed: boolean;
}
const reads = new AsyncLocalStorage<ReadScope>();

/** Runs `fn` (a GET) with the configuration read through the cache outside units of work. */
export const withConfigReads = <T>(fn: () => Promise<T>): Promise<T> =>
  reads.run({ memo: new Map(), changed: false }, fn);

const readVersion = async (conn: Conn): Promise<number> => (await versionRow(conn).get())?.v ?? 0;

async function fromCacheOutside<T>(conn: Conn, r: ReadScope, key: string, load: () => Promise<T>): Promise<T> {
  const cache = conn.store.config;
  // Undefined: a unit of work of this process was changing configuration when the version was
  // read (on SQLite a read may share its connection's view): nothing of this request is kept.
  r.version ??= cache.pending > 0 ? Promise.resolve(undefined) : readVersion(conn);
  const version = await r.version;
  if (version === undefined) return load();
  return keptOrLoaded(cache, version, key, load, () => !r.changed);
}

/**
 * Inside a unit of work that changes configuration the cache keeps (scrips, templates, queues and
 * their watchers and aliases, custom fields and their queues, teams and their members, our own
 * addresses): bumps `config_version` in the same unit of work, so every process's next unit of
 * work reads the configuration afresh. Call it BEFORE the change's first write (from then on the
 * unit of work reads configuration without the cache). Every write to those tables goes through a
 * module that calls it (tests/architecture.test.ts checks).
 */
export async function configChanged(tx: Tx): Promise<void> {
  const u = unitState();
  if (!u || !tx.store.work.isTx(tx)) throw new Error('configChanged: only inside a unit of work');
  if (u.changed) return;
  u.changed = true;
  // A GET that changes configuration reads it afresh from now on (withConfigReads).
  const r = reads.getStore();
  if (r) r.changed = true;
  u.memo.clear(); // what it read before its change is read again
  u.outcome.changes++;
  tx.store.config.pending++;
  await tx
    .insert(configVersion)
    .values({ id: 1, version: 1 })
    .onConflictDoUpdate({ target: configVersion.id, set: { version: sql`${configVersion.version} + 1` } });
}

/** A unit of work that changes cached configuration: `configChanged` first, then `fn` (decision 067). */
export function configTransaction<T>(conn: Conn, fn: (tx: Tx) => Promise<T>, opts?: UnitOfWork): Promise<T> {
  return transaction(
    conn,
    async (tx) => {
      await configChanged(tx);
      return fn(tx);
    },
    opts,
  );
}
