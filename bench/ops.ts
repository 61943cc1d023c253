// The per-operation measurements of `npm run bench` (bench/run.ts): an operation with a single
// client (sequential requests, latency percentiles), or under concurrent load (autocannon).
import http from 'node:http';
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

/** One keep-alive connection for the single client (a client of its own per run, as a browser tab has). */
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

/** One request over `agent`, its answer read to the end: the status. */
function send(
  base: string,
  req: { method: string; path: string; body?: string; headers?: Record<string, string> },
  auth: Record<string, string>,
): Promise<number> {
  const u = new URL(base + req.path);
  const headers: Record<string, string> = { ...auth, ...req.headers };
  if (req.body !== undefined) headers['content-length'] = String(Buffer.byteLength(req.body));
  return new Promise((resolve, reject) => {
    const r = http.request(
      { host: u.hostname, port: u.port, path: u.pathname + u.search, method: req.method, agent, headers },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', reject);
      },
    );
    r.on('error', reject);
    r.end(req.body);
  });
}

/** Requests sent before an operation's measured ones, not counted: its code paths compiled, as in a running server. */
export const warmUps = (n: number) => Math.min(20, Math.ceil(n / 5));

/**
 * An operation with one client: `n` requests one after another, after warmUps(n) not counted,
 * over a keep-alive `node:http` connection (docs/decisions/099: `fetch` added 0.3–0.5 ms of the
 * client's own to each request, and a p50 of 50 requests counted the first, not yet compiled ones).
 */
export async function single(
  op: string,
  n: number,
  make: (i: number) => { method: string; path: string; body?: string; headers?: Record<string, string> },
  base: string,
  auth: Record<string, string>,
) {
  const warm = warmUps(n);
  for (let i = 0; i < warm; i++) await send(base, make(n + i), auth);
  const times: number[] = [];
  let errors = 0;
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    const req = make(i);
    const s = performance.now();
    const status = await send(base, req, auth);
    times.push(performance.now() - s);
    if (status >= 400) errors++;
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
