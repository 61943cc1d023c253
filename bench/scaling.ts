// Write scaling (SPEC D1 "Measure", docs/decisions/060), a part of `npm run bench`:
//  - each write (create ticket, public reply) with 1 and with N connections (--connections,
//    default 8), in several rounds (--rounds, default 3), each a closed loop of --duration
//    seconds after a short warm-up; writes per second per round, their median and spread, and
//    the ratio N/1 of each round (the two runs of a round are measured back to back, so a
//    change in the machine's load touches both);
//  - with two servers on one database (--processes 2, PostgreSQL): the same writes, and reads,
//    with N connections all on one process, then spread round-robin over both (connection i to
//    server i mod 2, as a load balancer would); the ratio 2/1 per round.
// Each figure carries the machine's 1-minute load average when it was taken (os.loadavg()):
// the machine may be shared.
import http from 'node:http';
import os from 'node:os';

export interface Req {
  method: string;
  path: string;
  body?: string;
  headers?: Record<string, string>;
}
export interface LoopResult {
  ops_per_s: number;
  requests: number;
  p50_ms: number;
  p99_ms: number;
  errors: number;
  load1: number;
}

const round2 = (n: number) => Math.round(n * 100) / 100;

function send(agent: http.Agent, base: URL, req: Req, auth: Record<string, string>): Promise<number> {
  return new Promise((resolve) => {
    const headers: Record<string, string | number> = { ...auth, ...req.headers };
    if (req.body !== undefined) headers['content-length'] = Buffer.byteLength(req.body);
    const r = http.request(
      { agent, host: base.hostname, port: base.port, method: req.method, path: req.path, headers, timeout: 30_000 },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', () => resolve(0));
      },
    );
    r.on('timeout', () => r.destroy(new Error('timeout')));
    r.on('error', () => resolve(0));
    r.end(req.body);
  });
}

/**
 * `connections` keep-alive connections, connection i on bases[i mod n], each sending `make(k)`
 * (k counts the requests of all connections) as soon as its last answer came, for `warmup` +
 * `seconds` seconds; counts the answers that came after the warm-up and before the end.
 */
export async function closedLoop(opts: {
  bases: string[];
  auth: Record<string, string>;
  connections: number;
  seconds: number;
  warmup?: number;
  make: (k: number) => Req;
}): Promise<LoopResult> {
  const warmup = opts.warmup ?? 1;
  const t0 = performance.now();
  const from = t0 + warmup * 1000;
  const end = from + opts.seconds * 1000;
  let k = 0;
  const ms: number[] = [];
  let errors = 0;
  const loop = async (i: number) => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const base = new URL(opts.bases[i % opts.bases.length]);
    while (performance.now() < end) {
      // (a request sent near the end is answered after it and not counted; the loop waits for it)
      const sent = performance.now();
      const status = await send(agent, base, opts.make(k++), opts.auth);
      const done = performance.now();
      // Answers that come within the window, whenever sent: with answers taking a good part of
      // the window (8 writers queued behind each other), counting only those sent in it would
      // leave out most of them.
      if (done >= from && done <= end) {
        ms.push(done - sent);
        if (status < 200 || status >= 300) errors++;
      }
    }
    agent.destroy();
  };
  await Promise.all(Array.from({ length: opts.connections }, (_, i) => loop(i)));
  ms.sort((a, b) => a - b);
  const pct = (p: number) => (ms.length ? round2(ms[Math.min(ms.length - 1, Math.floor(p * ms.length))]) : 0);
  return {
    ops_per_s: round2(ms.length / opts.seconds),
    requests: ms.length,
    p50_ms: pct(0.5),
    p99_ms: pct(0.99),
    errors,
    load1: round2(os.loadavg()[0]),
  };
}

export interface Op {
  op: string;
  make: (k: number) => Req;
}
interface Pair {
  op: string;
  /** What is compared: connections (1 vs N) or processes (1 vs 2). */
  compare: string;
  rounds: { a: LoopResult; b: LoopResult; ratio: number }[];
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const spread = (xs: number[]) => `${round2(median(xs))} (${round2(Math.min(...xs))}–${round2(Math.max(...xs))})`;

/** Runs `a` and `b` back to back in each of `rounds` rounds (b first in every other round). */
async function pairs(
  op: string,
  compare: string,
  rounds: number,
  a: () => Promise<LoopResult>,
  b: () => Promise<LoopResult>,
) {
  const pair: Pair = { op, compare, rounds: [] };
  for (let r = 0; r < rounds; r++) {
    let ra: LoopResult;
    let rb: LoopResult;
    if (r % 2 === 0) {
      ra = await a();
      rb = await b();
    } else {
      rb = await b();
      ra = await a();
    }
    pair.rounds.push({ a: ra, b: rb, ratio: ra.ops_per_s > 0 ? round2(rb.ops_per_s / ra.ops_per_s) : 0 });
  }
  return pair;
}

/**
 * The scaling section: writes with 1 and `connections` connections on the first server; with two
 * servers, writes and reads on one process vs both. Prints JSON lines and a Markdown table;
 * returns the pairs measured.
 */
export async function scaling(opts: {
  bases: string[];
  auth: Record<string, string>;
  connections: number;
  seconds: number;
  rounds: number;
  writes: Op[];
  reads: Op[];
  label: string;
  out: (s: string) => void;
  log: (m: string) => void;
}): Promise<Pair[]> {
  const run = (bases: string[], connections: number, op: Op) => () =>
    closedLoop({ bases, auth: opts.auth, connections, seconds: opts.seconds, make: op.make });
  const N = opts.connections;
  const done: Pair[] = [];
  for (const op of opts.writes) {
    opts.log(`scaling: ${op.op}, 1 vs ${N} connections, ${opts.rounds} rounds of ${opts.seconds} s`);
    done.push(
      await pairs(op.op, `1 → ${N} connections`, opts.rounds, run([opts.bases[0]], 1, op), run([opts.bases[0]], N, op)),
    );
  }
  if (opts.bases.length > 1) {
    const both = opts.bases.slice(0, 2);
    for (const op of [...opts.writes, ...opts.reads]) {
      opts.log(`scaling: ${op.op}, ${N} connections on 1 vs 2 processes, ${opts.rounds} rounds of ${opts.seconds} s`);
      done.push(
        await pairs(op.op, `1 → 2 processes (${N} conns)`, opts.rounds, run([both[0]], N, op), run(both, N, op)),
      );
    }
  }
  for (const p of done)
    opts.out(
      `${JSON.stringify({
        scaling: opts.label,
        op: p.op,
        compare: p.compare,
        rounds: p.rounds.map((r) => ({ before: r.a, after: r.b, ratio: r.ratio })),
        ratio_median: round2(median(p.rounds.map((r) => r.ratio))),
      })}\n`,
    );
  const fmt = (xs: LoopResult[], f: (r: LoopResult) => number) => spread(xs.map(f));
  opts.out(
    [
      '',
      `### Scaling: ${opts.label} — median (min–max) of ${opts.rounds} rounds of ${opts.seconds} s`,
      '',
      '| operation | compared | ops/s before | ops/s after | ratio after/before | p99 ms before | p99 ms after | errors | load avg (1 min) |',
      '|---|---|---:|---:|---:|---:|---:|---:|---|',
      ...done.map((p) => {
        const a = p.rounds.map((r) => r.a);
        const b = p.rounds.map((r) => r.b);
        const loads = [...a, ...b].map((r) => r.load1);
        return `| ${p.op} | ${p.compare} | ${fmt(a, (r) => r.ops_per_s)} | ${fmt(b, (r) => r.ops_per_s)} | **${spread(p.rounds.map((r) => r.ratio))}** | ${fmt(a, (r) => r.p99_ms)} | ${fmt(b, (r) => r.p99_ms)} | ${[...a, ...b].reduce((s, r) => s + r.errors, 0)} | ${round2(Math.min(...loads))}–${round2(Math.max(...loads))} |`;
      }),
      '',
      'Each round measures "before" and "after" back to back (in alternating order); the ratio column is the median and range of the per-round ratios.',
      '',
    ].join('\n'),
  );
  return done;
}
