// What a request costs on this machine before hxdesk does anything (issue 32's closing question:
// what the machine cannot do). Build first: npx tsc -p tsconfig.build.json.
//   node bench/floors.mjs                      an HTTP request: a bare node:http server (its own
//                                              process) answering a ready body of 2 B, 45 KB and
//                                              100 KB to one keep-alive client, one at a time
//   DATABASE_URL=postgres://…/<dataset> [SQLITE=<a copy of the dataset's hxdesk.db>] \
//   [URL='/tickets?queue_id=2&status=open'] node bench/floors.mjs
//                                              also PostgreSQL's: the statements one request sends
//                                              (recorded from the app in process), sent again by a
//                                              bare node-postgres pool in the same chain (each
//                                              level's statements side by side, as the app sent
//                                              them), beside the app's own request on both stores
// p50 of N (default 2000) after a warm-up; CPU of this process per request where it says so.
import { spawn } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const N = Number(process.env.N ?? 2000);
const p50 = (a) => a.sort((x, y) => x - y)[Math.floor(a.length / 2)];
async function measure(run) {
  for (let i = 0; i < Math.min(300, N); i++) await run();
  const ts = [];
  const cpu = process.cpuUsage();
  for (let i = 0; i < N; i++) {
    const t = performance.now();
    await run();
    ts.push(performance.now() - t);
  }
  const used = process.cpuUsage(cpu);
  return { p50: p50(ts), cpu: (used.user + used.system) / 1000 / N };
}

// An HTTP request.
const sizes = [2, 45_000, 100_000];
const server = spawn(
  process.execPath,
  [
    '-e',
    `const bodies = new Map(${JSON.stringify(sizes)}.map((n) => [String(n), Buffer.from(JSON.stringify({ x: 'a'.repeat(Math.max(0, n - 8)) }))]));
require('node:http').createServer((req, res) => { const b = bodies.get(req.url.slice(1)); res.writeHead(200, { 'content-type': 'application/json', 'content-length': b.length }); res.end(b); }).listen(0, '127.0.0.1', function () { console.log(this.address().port); });`,
  ],
  { stdio: ['ignore', 'pipe', 'inherit'] },
);
const port = Number(await new Promise((resolve) => server.stdout.once('data', resolve)));
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const get = (p) =>
  new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path: p, agent }, (res) => {
        res.resume();
        res.on('end', resolve);
      })
      .on('error', reject);
  });
for (const n of sizes) {
  const m = await measure(() => get(`/${n}`));
  console.log(`HTTP, a bare node:http server, ${n} B body: p50 ${m.p50.toFixed(3)} ms`);
}
server.kill();
agent.destroy();

if (process.env.DATABASE_URL) {
  const url = process.env.URL ?? '/tickets?queue_id=2&status=open';
  const { default: pg } = await import(path.join(root, 'node_modules/pg/lib/index.js'));
  // One request's statements, as sent: text, values, and when each was sent and answered. The
  // hook is in place before the app's pool connects (the store binds each connection's query).
  const sent = [];
  let recording = false;
  let t0 = 0;
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (config, ...rest) {
    if (!recording || typeof config !== 'object' || config === null || typeof config.text !== 'string')
      return query.call(this, config, ...rest);
    // pg-pool's query passes a callback; a checked-out client's query returns a promise.
    const cb = typeof rest[rest.length - 1] === 'function' ? rest.pop() : undefined;
    const s = {
      text: config.text,
      named: !!config.name,
      values: config.values ?? rest[0],
      start: performance.now() - t0,
      end: 0,
    };
    sent.push(s);
    const done = () => {
      s.end = performance.now() - t0;
    };
    if (cb)
      return query.call(this, config, ...rest, (...a) => {
        done();
        cb(...a);
      });
    const r = query.call(this, config, ...rest);
    r.then(done, done);
    return r;
  };
  const { appOnStore } = await import('./appInProcess.mjs');
  const app = await appOnStore(
    path.join(root, 'dist'),
    {
      DATA_DIR: process.env.SQLITE ? path.dirname(process.env.SQLITE) : '/tmp',
      DATABASE_URL: process.env.DATABASE_URL,
    },
    'floors',
  );
  for (let i = 0; i < 30; i++) await app.call(url);
  recording = true;
  t0 = performance.now();
  await app.call(url);
  recording = false;
  // Levels: a statement sent after another was answered waited for it.
  const levels = [];
  for (const s of sent) {
    const level = levels.find((l) => l.every((o) => s.start < o.end));
    if (level && levels.indexOf(level) === levels.length - 1) level.push(s);
    else levels.push([s]);
  }
  // The sessions the store's own pool opens (no JIT, no parallel workers).
  const { poolSettings } = await import(path.join(root, 'dist/db/postgres/store.js'));
  const pool = new pg.Pool({ ...poolSettings(process.env.DATABASE_URL), max: 10 });
  const replay = async () => {
    for (const level of levels)
      await Promise.all(
        // Named where the app named it: a pattern's statement is planned with its values each run.
        level.map((s, i) =>
          pool.query({
            name: s.named ? `floor_${levels.indexOf(level)}_${i}` : undefined,
            text: s.text,
            values: s.values,
          }),
        ),
      );
  };
  const bare = await measure(replay);
  const own = await measure(() => app.call(url));
  console.log(
    `PostgreSQL, ${url}: ${sent.length} statements in ${levels.length} levels (${levels.map((l) => l.length).join(' → ')})`,
  );
  console.log(
    `  sent again by a bare node-postgres pool: p50 ${bare.p50.toFixed(2)} ms, ${bare.cpu.toFixed(2)} ms of this process's CPU`,
  );
  console.log(
    `  the app's request in process:            p50 ${own.p50.toFixed(2)} ms, ${own.cpu.toFixed(2)} ms of CPU`,
  );
  await pool.end();
  if (process.env.SQLITE) {
    const sqlite = await appOnStore(path.join(root, 'dist'), { DATA_DIR: path.dirname(process.env.SQLITE) }, 'floors');
    const m = await measure(() => sqlite.call(url));
    console.log(
      `  SQLite, the same request in process:     p50 ${m.p50.toFixed(2)} ms, ${m.cpu.toFixed(2)} ms of CPU (reader threads included)`,
    );
  }
  process.exit(0);
}
