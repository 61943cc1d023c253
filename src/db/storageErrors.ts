// The errors a store throws that the domain and the app answer (decision 042): part of the store
// port (src/db/port.ts, decision 026), with no dialect in them; each store maps its driver's codes
// to these under src/db/<dialect>/.

/** Thrown by a store when a text search would read more than its budget (the domain answers 422 on `q`). */
export class SearchTooBroad extends Error {
  constructor() {
    super('Too broad to search');
    this.name = 'SearchTooBroad';
  }
}

/**
 * Why a store cannot write (docs/decisions/042): its disk is full, it is read-only (a file system
 * remounted read-only, a standby database), the disk failed a read or a write, or the database
 * server ran out of another resource (connections, memory). Each store maps its own error codes
 * to these under src/db/<dialect>/; nothing above the store sees a dialect's code.
 */
export type StorageCause = 'disk_full' | 'read_only' | 'io_error' | 'exhausted';

const STORAGE_WORDS: Record<StorageCause, string> = {
  disk_full: 'the disk holding the database is full',
  read_only: 'the database is read-only',
  io_error: 'the disk holding the database failed a read or write',
  exhausted: 'the database server is out of resources',
};

/**
 * A unit of work (or a read) failed because the store cannot write: an outage of the machine,
 * not a fault of the request nor of ours. Answered 503 `storage_unavailable` with Retry-After;
 * the background workers back off. `detail` is the database's own words (no SQL, no data).
 */
export class StorageUnavailable extends Error {
  /** The cause in words, without the database's own (which may name its files): what clients are told. */
  readonly summary: string;
  constructor(
    readonly storage: StorageCause,
    readonly detail: string,
    options?: { cause?: unknown },
  ) {
    super(`${STORAGE_WORDS[storage]} (${detail})`, options);
    this.name = 'StorageUnavailable';
    this.summary = STORAGE_WORDS[storage];
  }
}

/** An error and the errors it wraps (`cause`, as drizzle wraps a driver's error), a few deep. */
export function* causeChain(err: unknown): Generator<object> {
  for (
    let e: unknown = err, depth = 0;
    e && typeof e === 'object' && depth < 4;
    e = (e as { cause?: unknown }).cause, depth++
  )
    yield e;
}
