import v8 from 'node:v8';
import type { ResourceLimits } from 'node:worker_threads';

// A worker thread's heap is its pool's to size (docs/decisions/115). npm start's
// `--max-semi-space-size` is for the HTTP thread, whose heap V8 makes as the process starts. V8
// reads that process-wide flag again for each isolate made later and lets it win over the
// isolate's own `resourceLimits`: every reader and mail thread grew the HTTP thread's young
// generation (16 MB of new space) whatever its pool asked.

/** A reader, mail or store thread's young generation: 2 MB semi-spaces, ~4 MB of new space. */
const THREAD_YOUNG_MB = 6;

let cleared = false;

/**
 * `limits` as a new worker thread's `resourceLimits`, with its young generation its own. The
 * first call clears the process's semi-space flag for the isolates made from then on (0: no
 * flag); the heaps made before, the HTTP thread's among them, keep the size they were made with.
 */
export function threadLimits(limits: ResourceLimits = {}): ResourceLimits {
  if (!cleared) {
    v8.setFlagsFromString('--max-semi-space-size=0');
    cleared = true;
  }
  return { maxYoungGenerationSizeMb: THREAD_YOUNG_MB, ...limits };
}
