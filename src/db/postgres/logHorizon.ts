import type pg from 'pg';
import type { LogHorizon } from '../port.js';

// SPEC D1: the change log stays exact without a writer lock (docs/decisions/063). Units of work
// append to `transactions` side by side; its ids come from a sequence at insert and commits come
// in any order, so a reader that saw id 11 could later find a 10 that committed after it. The
// reader therefore reads only up to a horizon below which every entry is final:
//
// Every unit of work takes its transaction id (pg_current_xact_id(), in logAppend) before it takes
// a log id from the sequence. So if the sequence stood at S, and afterwards a snapshot listed the
// transactions in flight as X, every id ≤ S belongs to a transaction that had finished by then or
// is in X. Once none of X is in flight any more, ids ≤ S are final: what is not there then never
// will be (a rolled-back id). The common case — nothing in flight — gives S at once.

/** A horizon to be: the sequence's value, and what was in flight just after it was read. */
interface Candidate {
  seq: number;
  inFlight: Set<string>;
}

/** At most this many candidates wait at once (one per read while writers stay in flight). */
const MAX_CANDIDATES = 64;

export function pgLogHorizon(pool: pg.Pool): () => Promise<LogHorizon> {
  let final = 0;
  let candidates: Candidate[] = [];
  return async () => {
    // The sequence first, then the snapshot: the order the argument above needs (two statements,
    // so it is the order they run in).
    const s = await pool.query<{ last_value: number; is_called: boolean }>(
      'SELECT last_value, is_called FROM transactions_id_seq',
    );
    const seq = s.rows[0].is_called ? Number(s.rows[0].last_value) : Number(s.rows[0].last_value) - 1;
    const x = await pool.query<{ xip: string[] | null }>(
      'SELECT array_agg(x::text) AS xip FROM pg_snapshot_xip(pg_current_snapshot()) AS x',
    );
    const now = new Set(x.rows[0].xip ?? []);
    // A candidate none of whose transactions is still in flight is final.
    const waiting: Candidate[] = [];
    for (const c of candidates) {
      if ([...c.inFlight].some((xid) => now.has(xid))) waiting.push(c);
      else final = Math.max(final, c.seq);
    }
    if (now.size === 0) {
      final = Math.max(final, seq);
      candidates = [];
    } else {
      // A newer candidate with the same sequence value waits on no more than an older one.
      if (waiting.length > 0 && waiting[waiting.length - 1].seq === seq) waiting.pop();
      if (seq > final) waiting.push({ seq, inFlight: now });
      candidates = waiting.slice(-MAX_CANDIDATES);
    }
    return { upTo: final, settled: candidates.length === 0 };
  };
}
