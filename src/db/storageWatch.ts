import type { StorageUnavailable } from './storageErrors.js';

// What both stores do about a full disk or a read-only store (docs/decisions/042); what differs
// between them (which driver errors mean it, the probe write) is given by each store.

export interface StorageWatch {
  /**
   * Runs a unit of work: a failure that `classify` reads as a storage failure is thrown as that
   * StorageUnavailable (the driver's error as its cause) and remembered; any other error as it is.
   */
  run<T>(fn: () => Promise<T>): Promise<T>;
  /** A storage failure met outside a unit of work (the store's own upkeep): remembered, and returned typed. */
  failed(err: unknown): unknown;
  /** The failure writes meet, or null; while one is remembered, the probe is tried again (at most every `probeEveryMs`). */
  problem(): Promise<StorageUnavailable | null>;
}

/**
 * The store's storage state. Only a probe clears a remembered failure: a unit of work that
 * succeeds may have written nothing (SQLite commits an unchanged transaction without touching
 * the disk), so it proves nothing about space. The probe is a small write of the store's own
 * that needs the disk (see each store), tried only while a failure is remembered and someone
 * asks (`/healthz`), at most once per `probeEveryMs`, one at a time.
 */
export function storageWatch(opts: {
  classify: (err: unknown) => StorageUnavailable | undefined;
  probe: () => Promise<void>;
  probeEveryMs?: number;
  now?: () => number;
}): StorageWatch {
  const now = opts.now ?? Date.now;
  const every = opts.probeEveryMs ?? 1000;
  let failing: StorageUnavailable | null = null;
  let checkedAt = 0;
  let probing: Promise<void> | null = null;

  const remember = (err: unknown): unknown => {
    const s = opts.classify(err);
    if (!s) return err;
    failing = s;
    checkedAt = now();
    return s;
  };

  const probe = () =>
    (probing ??= (async () => {
      try {
        await opts.probe();
        failing = null;
      } catch (e) {
        const s = opts.classify(e);
        // A probe that fails for another reason (the connection is gone) says nothing about space: keep what we know.
        if (s) failing = s;
      } finally {
        checkedAt = now();
        probing = null;
      }
    })());

  return {
    async run(fn) {
      try {
        return await fn();
      } catch (e) {
        throw remember(e);
      }
    },
    failed: remember,
    async problem() {
      if (failing && now() - checkedAt >= every) await probe();
      return failing;
    },
  };
}
