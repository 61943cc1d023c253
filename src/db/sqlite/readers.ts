import { Piscina } from 'piscina';
import { threadLimits } from '../../threadHeap.js';
import { SearchTooBroad } from '../storageErrors.js';
import type { TicketListSpec } from '../ticketListSpec.js';
import type { ListAnswer } from './listWorker.js';

// Reader threads (SPEC C6, the tail under load; docs/decisions/031): ticket lists and searches
// — the costliest reads, 70 % of the HTTP thread under the mixed load — run on worker threads,
// each with its own read-only connection, so the HTTP thread keeps answering and the other
// cores work. Lists inside a unit of work stay on the writer (they must see its changes).

const fromSource = import.meta.url.endsWith('.ts'); // under tsx or vitest, not the compiled dist/

export interface Readers {
  /** The list as the worker's connection answered it (./listWorker.ts). */
  list(spec: TicketListSpec): Promise<Extract<ListAnswer, { ok: unknown }>['ok']>;
  /** Threads and the lists they answered so far (ops and tests). */
  stats(): { threads: number; lists: number };
  close(): Promise<void>;
}

export function startReaders(file: string, threads: number): Readers {
  let pool: Piscina | undefined;
  let lists = 0;
  // Started at the first list: a server that never lists (a CLI command, a test) starts no thread.
  const workers = () =>
    (pool ??= new Piscina({
      filename: new URL(fromSource ? './listWorker.source.mjs' : './listWorker.js', import.meta.url).href,
      minThreads: threads,
      maxThreads: threads,
      idleTimeout: Infinity,
      recordTiming: false,
      resourceLimits: threadLimits(),
    }));
  return {
    async list(spec) {
      const answer = (await workers().run({ file, spec }, { name: 'list' })) as ListAnswer;
      lists += 1;
      if ('tooBroad' in answer) throw new SearchTooBroad();
      return answer.ok;
    },
    stats: () => ({ threads, lists }),
    async close() {
      const p = pool;
      pool = undefined;
      await p?.destroy();
    },
  };
}
