import { AsyncLocalStorage } from 'node:async_hooks';

// Decision 066: configuration a unit of work reads more than once (our own addresses, the queues'
// aliases, a template two scrips share) is read once per unit of work — each attempt of it.
// Decision 067 keeps it longer, per process (src/db/configCache.ts), for as long as the
// configuration's version (`config_version`) is the one the unit of work read; what a unit of
// work knows of that version, and whether it changed the configuration itself, lives here too.

/** One attempt of a unit of work, as the configuration cache sees it. */
export interface UnitState {
  /** Loads of this attempt, by key (each once). */
  memo: Map<unknown, Promise<unknown>>;
  /** The configuration's version this attempt read (with its ticket lock, or on its own), once known. */
  version?: number;
  /** This attempt changed cached configuration (configChanged): it reads its own, uncommitted, configuration. */
  changed: boolean;
  /** Shared by every attempt of one unit of work: how many attempts changed configuration. */
  outcome: UnitOutcome;
  /** The tickets this attempt locked, as read with their lock (see `lockedTicket`). */
  locked?: Map<number, object>;
}

/** What the attempts of one unit of work did, known to `transaction()` when it settles. */
export interface UnitOutcome {
  changes: number;
}

const scope = new AsyncLocalStorage<UnitState>();

/** Runs one attempt of a unit of work with an empty memo of its own. */
export const withUnitMemo = <T>(outcome: UnitOutcome, fn: () => Promise<T>): Promise<T> =>
  scope.run({ memo: new Map(), changed: false, outcome }, fn);

/** The attempt of a unit of work running now (undefined outside one). */
export const unitState = (): UnitState | undefined => scope.getStore();

/** The store read the configuration's version with another statement of this unit of work (its ticket lock). */
export function noteConfigVersion(version: number | null | undefined): void {
  const u = scope.getStore();
  if (u && u.version === undefined && version !== undefined) u.version = Number(version ?? 0);
}

/**
 * `load()` once per unit of work for `key` when `inUnit` (the caller's handle is a unit of
 * work's); otherwise (a read outside one) every time.
 */
export function oncePerUnit<T>(inUnit: boolean, key: unknown, load: () => Promise<T>): Promise<T> {
  const memo = inUnit ? scope.getStore()?.memo : undefined;
  if (!memo) return load();
  let p = memo.get(key) as Promise<T> | undefined;
  if (!p) memo.set(key, (p = load()));
  return p;
}

/** Forgets what this unit of work loaded for `key` (it changed it): the next `oncePerUnit` loads it again. */
export function forgetInUnit(key: unknown): void {
  scope.getStore()?.memo.delete(key);
}

/** Notes the row of a ticket this unit of work has just locked (read with its lock). */
export function noteLockedTicket(id: number, row: object): void {
  const u = scope.getStore();
  if (u) (u.locked ??= new Map()).set(id, row);
}

/**
 * The row of ticket `id` as this unit of work locked it, or undefined (not locked here, or
 * outside a unit of work). Only as current as its readers keep it: a step that writes a column
 * it reads from here sets that column on this object too (the SLA clocks: `sla`).
 */
export function lockedTicket<T extends object>(id: number): T | undefined {
  return scope.getStore()?.locked?.get(id) as T | undefined;
}
