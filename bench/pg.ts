// PostgreSQL for the benchmarks (`--store postgres`, docs/decisions/060).
//
// Without --database-url the bench starts a throwaway cluster as the tests do
// (tests/helpers/postgres.ts: Debian's binaries, run as the `postgres` OS user, 127.0.0.1, trust,
// fsync and synchronous_commit off), copies the SQLite dataset into it with copy-store's own code
// (src/cli/copyStore.ts, what `hxdesk copy-store --to …` runs), and stops it when the bench ends.
// With --database-url it uses that database, which must already hold the dataset.
//
// Each run works on a fresh copy of the dataset's database (CREATE DATABASE … TEMPLATE), and the
// server reaches it through a delaying relay (bench/relay.ts, --pg-delay-ms, default 1 ms each
// way; 0: directly), as a server on another host would be reached.
import pg from 'pg';
import { copyPgDatabase } from './server.js';
import { type Relay, startRelay } from './relay.js';

export interface BenchPostgres {
  /** The database holding the dataset (the template of the copies). */
  sourceUrl: string;
  /** Where it came from, for the report. */
  origin: string;
  delayMs: number;
  /** Median and p95 ms of `SELECT 1` directly and through the relay (what the delay adds per round trip). */
  roundTrip: { direct_p50_ms: number; relay_p50_ms: number; direct_p95_ms: number; relay_p95_ms: number } | null;
  /** A fresh copy of the dataset named `name`: its URL through the relay, and a function that drops it. */
  freshCopy(name: string): Promise<{ url: string; drop(): Promise<void> }>;
  /** Stops the relay and a cluster the bench started. */
  close(): Promise<void>;
}

/** `url` with its host and port replaced by the relay's. */
function viaRelay(url: string, relay: Relay | null): string {
  if (!relay) return url;
  const u = new URL(url);
  u.hostname = '127.0.0.1';
  u.port = String(relay.port);
  return u.toString();
}

async function roundTrips(url: string, n = 200): Promise<{ p50: number; p95: number }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const ms: number[] = [];
    for (let i = 0; i < n; i++) {
      const t = performance.now();
      await client.query('SELECT 1');
      ms.push(performance.now() - t);
    }
    ms.sort((a, b) => a - b);
    const r = (x: number) => Math.round(x * 100) / 100;
    return { p50: r(ms[Math.floor(n / 2)]), p95: r(ms[Math.floor(n * 0.95)]) };
  } finally {
    await client.end();
  }
}

export async function benchPostgres(opts: {
  databaseUrl?: string;
  /** The SQLite dataset to copy into a cluster the bench starts. */
  dbPath: string;
  delayMs: number;
  log: (m: string) => void;
}): Promise<BenchPostgres> {
  let sourceUrl = opts.databaseUrl ?? '';
  let origin = sourceUrl ? `--database-url ${new URL(sourceUrl).host}` : '';
  let stopCluster: (() => Promise<void>) | null = null;
  if (!sourceUrl) {
    // Only here: the tests' helper (it imports pg and the migrations, not vitest).
    const { pgAvailable, startPostgres } = await import('../tests/helpers/postgres.js');
    if (!pgAvailable())
      throw new Error(
        '--store postgres without --database-url starts a throwaway cluster, which needs the PostgreSQL server binaries (apt-get install postgresql; as root, the `postgres` user and runuser); or give --database-url postgres://…/<a database holding the dataset>',
      );
    const cluster = await startPostgres();
    stopCluster = () => cluster.stop();
    try {
      const url = cluster.url('hxdesk_bench_dataset');
      const admin = new pg.Client({ connectionString: cluster.url() });
      await admin.connect();
      await admin.query('CREATE DATABASE hxdesk_bench_dataset');
      await admin.end();
      const { copyStore } = await import('../src/cli/copyStore.js');
      const t0 = performance.now();
      const done = await copyStore(opts.dbPath, url);
      opts.log(
        `PostgreSQL: throwaway cluster on port ${cluster.port} (started in ${cluster.startMs} ms); dataset copied with copy-store in ${((performance.now() - t0) / 1000).toFixed(1)} s (${done.rows} rows)`,
      );
      sourceUrl = url;
      origin = `throwaway cluster (tests/helpers/postgres.ts: fsync, synchronous_commit off), dataset copied with copy-store`;
    } catch (e) {
      await cluster.stop();
      throw e;
    }
  }
  let relay: Relay | null = null;
  let roundTrip: BenchPostgres['roundTrip'] = null;
  const target = new URL(sourceUrl);
  if (opts.delayMs > 0) {
    if (!target.hostname)
      opts.log(`PostgreSQL: ${sourceUrl} names no TCP host (a Unix socket?): no relay, --pg-delay-ms ignored`);
    else {
      relay = await startRelay({ host: target.hostname, port: Number(target.port || 5432) }, opts.delayMs);
      const direct = await roundTrips(sourceUrl);
      const relayed = await roundTrips(viaRelay(sourceUrl, relay));
      roundTrip = {
        direct_p50_ms: direct.p50,
        direct_p95_ms: direct.p95,
        relay_p50_ms: relayed.p50,
        relay_p95_ms: relayed.p95,
      };
      opts.log(
        `PostgreSQL: relay with ${opts.delayMs} ms each way on 127.0.0.1:${relay.port}; SELECT 1 round trip p50 ${direct.p50} ms directly, ${relayed.p50} ms through the relay`,
      );
    }
  }
  return {
    sourceUrl,
    origin,
    delayMs: relay ? opts.delayMs : 0,
    roundTrip,
    freshCopy: async (name) => {
      const copy = await copyPgDatabase(sourceUrl, name);
      return { url: viaRelay(copy.url, relay), drop: copy.drop };
    },
    close: async () => {
      await relay?.stop();
      await stopCluster?.();
    },
  };
}
