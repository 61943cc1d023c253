import { AsyncLocalStorage } from 'node:async_hooks';

// Decision 066: configuration a unit of work reads more than once (our own addresses, the queues'
// aliases, a template two scrips share) is read once per unit of work — each attempt of it — and
// never kept past it, so every write still sees an admin's latest committed change, whichever
// process made it.

const scope = new AsyncLocalStorage<Map<unknown, Promise<unknown>>>();

/** Runs one attempt of a unit of work with an empty memo of its own. */
export const withUnitMemo = <T>(fn: () => Promise<T>): Promise<T> => scope.run(new Map(), fn);

/**
 * `load()` once per unit of work for `key` when `inUnit` (the caller's handle is a unit of
 * work's); otherwise (a read outside one) every time.
 */
export function oncePerUnit<T>(inUnit: boolean, key: unknown, load: () => Promise<T>): Promise<T> {
  const memo = inUnit ? scope.getStore() : undefined;
  if (!memo) return load();
  let p = memo.get(key) as Promise<T> | undefined;
  if (!p) memo.set(key, (p = load()));
  return p;
}
