import { AsyncLocalStorage } from 'node:async_hooks';

// Decision 066: what a request that changes something reads outside its unit of work (its
// session or token, the settings, the answer's extra reads) is part of a write. On PostgreSQL
// such statements do not queue behind the reads' share of the pool (src/db/postgres/readSlots.ts):
// a write must not wait for lists and pages it has nothing to do with.

const writing = new AsyncLocalStorage<true>();

/** Runs `fn` as part of a write: the store's statements in it are not held back as reads. */
export const asWrite = <T>(fn: () => T): T => writing.run(true, fn);

/** Whether the caller runs as part of a write. */
export const inWrite = (): boolean => writing.getStore() === true;
