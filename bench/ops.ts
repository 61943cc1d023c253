// The per-operation measurements of `npm run bench` (bench/run.ts): an operation with a single
// client (sequential requests, latency percentiles), or under concurrent load (autocannon).
import autocannon from 'autocannon';

export interface Result {
  op: string;
  mode: 'single' | 'load';
  requests: number;
  ops_per_s: number;
  p50_ms: number;
  p95_ms: number;
  p99_ms: number;
  errors: number;
}
/** The run's settings and the operations of the store being measured (measure() starts a new list per store). */
export const state = {
  size: 0,
  connections: 8,
  duration: 5,
  store: 'sqlite' as 'sqlite' | 'postgres',
  results: [] as Result[],
};

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const round = (n: number) => Math.round(n * 100) / 100;

function report(r: Result) {
  state.results.push(r);
  process.stdout.write(`${JSON.stringify({ size: state.size, store: state.store, ...r })}\n`);
}

export async function single(
  op: string,
  n: number,
  make: (i: number) => { method: string; path: string; body?: string; headers?: Record<string, string> },
  base: string,
  auth: Record<string, string>,
) {
  const times: number[] = [];
  let errors = 0;
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    const req = make(i);
    const s = performance.now();
    const res = await fetch(base + req.path, {
      method: req.method,
      headers: { ...auth, ...req.headers },
      body: req.body,
    });
    await res.arrayBuffer();
    times.push(performance.now() - s);
    if (res.status >= 400) errors++;
  }
  const total = (performance.now() - t0) / 1000;
  times.sort((a, b) => a - b);
  report({
    op,
    mode: 'single',
    requests: n,
    ops_per_s: round(n / total),
    p50_ms: round(pct(times, 50)),
    p95_ms: round(pct(times, 95)),
    p99_ms: round(pct(times, 99)),
    errors,
  });
}

export function load(
  op: string,
  base: string,
  auth: Record<string, string>,
  make: (i: number) => { method: string; path: string; body?: string; headers?: Record<string, string> },
): Promise<void> {
  let i = 0;
  const first = make(0);
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url: base,
        connections: state.connections,
        duration: state.duration,
        requests: [
          {
            method: first.method as 'POST',
            path: first.path,
            setupRequest: (req) => {
              const r = make(i++);
              return {
                ...req,
                method: r.method as 'POST',
                path: r.path,
                body: r.body,
                headers: { ...auth, ...r.headers },
              };
            },
          },
        ],
      },
      (err, res) => {
        if (err) return reject(err);
        report({
          op,
          mode: 'load',
          requests: res.requests.total,
          ops_per_s: round(res.requests.average),
          p50_ms: res.latency.p50,
          p95_ms: res.latency.p97_5,
          p99_ms: res.latency.p99,
          errors: res.errors + res.non2xx,
        });
        resolve();
      },
    );
  });
}
