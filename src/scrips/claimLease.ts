import type { Db } from '../db/port.js';
import { renewClaims } from './outboxClaims.js';

/**
 * A worker's hold on one claimed batch (decision 059): the lease is renewed every third of its
 * length while the batch is worked through (an SMTP attempt may take longer than a lease: the
 * transport's own timeouts run to minutes), and checked before each attempt, so a worker never
 * starts sending a row whose lease may have ended — another worker may have taken it over.
 */
export interface BatchLease {
  /** Whether `id` is still this worker's to send; renews first when the lease is in its last third. */
  keep(id: number): Promise<boolean>;
  /** The row's attempt is over (recorded, or owed): no more renewals for it. */
  done(id: number): void;
  /** Rows still held (not done, not lost). */
  ids(): number[];
  /** Stops renewing (the batch is over). */
  stop(): void;
}

export function holdBatch(
  db: Db,
  ids: number[],
  claim: { owner: string; leaseMs: number; claimedAt: number },
  onError: (e: unknown) => void,
): BatchLease {
  const held = new Set(ids);
  let until = claim.claimedAt + claim.leaseMs;
  let chain: Promise<void> = Promise.resolve();
  const renew = () =>
    (chain = chain.then(async () => {
      if (held.size === 0) return;
      // real time: the delivery schedule (decision 047).
      const at = Date.now();
      const asked = [...held];
      try {
        const still = await renewClaims(db, asked, { owner: claim.owner, leaseMs: claim.leaseMs, now: at });
        // A row not renewed was taken over after the lease ended (or put back by an admin): not ours.
        for (const id of asked) if (!still.has(id)) held.delete(id);
        until = at + claim.leaseMs;
      } catch (e) {
        onError(e);
      }
    }));
  const beat = setInterval(() => void renew(), Math.max(1, Math.floor(claim.leaseMs / 3)));
  beat.unref();
  return {
    async keep(id) {
      if (!held.has(id)) return false;
      // real time: the delivery schedule (decision 047).
      if (Date.now() > until - claim.leaseMs / 3) await renew();
      // real time: as above.
      if (Date.now() > until - claim.leaseMs / 3)
        throw new Error('outbox: the claim on the batch could not be renewed; its rows are left to the lease');
      return held.has(id);
    },
    done: (id) => void held.delete(id),
    ids: () => [...held],
    stop: () => clearInterval(beat),
  };
}
