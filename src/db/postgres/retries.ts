import { sourceFileAt } from '../../stackSource.js';
import type { StoreLog, WriteRetries } from '../port.js';
import { sqlState } from './storage.js';

// SPEC D1: units of work run side by side under READ COMMITTED (docs/decisions/058). A deadlock
// (40P01) — or, in a unit of work that asked for SERIALIZABLE, a serialization failure (40001) —
// means the database rolled the unit of work back for having met another; it runs again, a
// bounded number of times, after a short random pause. Each retry and each give-up is counted
// per operation (in this process's memory: an admin's GET /healthz?verbose=1 shows them) and logged.

/** serialization_failure and deadlock_detected: the unit of work lost to a concurrent one and may simply run again. */
export const RETRYABLE = new Set(['40001', '40P01']);
/** How often a unit of work runs in all before its conflict is reported. */
export const MAX_ATTEMPTS = 8;

const counts = new Map<string, { retries: number; give_ups: number }>();

/** Retries and give-ups per operation since the process started, operations A→Z. */
export function writeRetries(): WriteRetries {
  return Object.fromEntries([...counts].sort(([a], [b]) => a.localeCompare(b)).map(([op, c]) => [op, { ...c }]));
}

const count = (op: string) => {
  let c = counts.get(op);
  if (!c) counts.set(op, (c = { retries: 0, give_ups: 0 }));
  return c;
};

/** The pause before attempt `attempt + 1`: random, up to 2, 4, 8 … 64 ms (jitter keeps two losers apart). */
const pauseMs = (attempt: number) => Math.random() * Math.min(64, 2 ** attempt);

/**
 * Runs a unit of work, again while it fails with a serialization failure or a deadlock. Running
 * it again is safe by the port's contract: only the database is awaited inside a unit of work,
 * and its effects were rolled back. `op` names the operation (called only when there is
 * something to count).
 */
export async function retryConflicts<T>(
  op: () => string,
  log: StoreLog | undefined,
  run: (sawConflict: () => void) => Promise<T>,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    let sawConflict = false;
    try {
      return await run(() => {
        sawConflict = true;
      });
    } catch (e) {
      const state = sqlState(e) ?? '';
      // 25P02 (in failed sql transaction): a statement failed earlier and the domain went on (a
      // scrip's failure is recorded, not thrown); a retry is right when that failure was a conflict.
      const retryable = RETRYABLE.has(state) || (state === '25P02' && sawConflict);
      if (!retryable) throw e;
      const name = op();
      const cause = state === '40P01' ? 'deadlock' : 'serialization failure';
      if (attempt >= MAX_ATTEMPTS) {
        count(name).give_ups++;
        log?.('error', `unit of work gave up after ${attempt} attempts (${cause})`, {
          operation: name,
          attempts: attempt,
        });
        throw e;
      }
      count(name).retries++;
      log?.('info', `unit of work runs again after a ${cause}`, { operation: name, attempt });
      await new Promise((r) => setTimeout(r, pauseMs(attempt)));
    }
  }
}

/** Frames of helpers that wrap a unit of work: the operation is their caller. */
const WRAPPERS = new Set(['unique', 'Promise.all', 'Array.map']);

/**
 * The operation a unit of work belongs to, from where `transaction()` was called: the first
 * function on `site`'s stack outside src/db (`updateTicket`), or its file and line.
 */
export function operationAt(site: Error): string {
  let first: string | undefined;
  for (const line of (site.stack ?? '').split('\n').slice(1)) {
    const m = /^\s*at (?:async )?(?:(.+?) \()?(.+?):(\d+):\d+\)?$/.exec(line);
    if (!m) continue;
    const [, fn, at, lineNo] = m;
    // In the bundled server (decision 091) every frame is in dist/server.js: the source file it came from says where.
    const source = sourceFileAt(at, Number(lineNo));
    const file = source ?? at;
    if (file.includes('node_modules')) break; // the framework's frames: past our code
    if (/[\\/]db[\\/]/.test(file) || file.startsWith('node:')) continue;
    const name = fn?.replace(/^(?:Object|Module)\./, '').replace(/^new /, '');
    // A wrapper's frame (the arrow handed to `unique`, `unique` itself) names no operation: the caller's does.
    if (!name || name.includes('anonymous') || WRAPPERS.has(name)) {
      first ??= source
        ? source.replace(/^src\//, '')
        : `${file.replace(/^.*[\\/]src[\\/]/, '').replace(/^file:\/\//, '')}:${lineNo}`;
      continue;
    }
    return name;
  }
  return first ?? 'unknown';
}
