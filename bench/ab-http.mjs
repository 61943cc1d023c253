// Two built trees as production servers (`dist/server.js`), each on its own copy of a dataset,
// over HTTP (keep-alive node:http, one request at a time), requests alternating between them:
// each URL's p50 per tree and their ratio (B ÷ A). GETs as an admin's API token, JSON (a URL
// ending in ' html' asks for the HTML page).
//   node bench/ab-http.mjs <treeA> <treeB> <hxdesk.db to copy> <url> [url…]   [N=300]
// Build both first (npx tsc -p tsconfig.build.json). The copies go to a temporary directory.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { appInProcess } from './appInProcess.mjs';

const [a, b, source, ...urls] = process.argv.slice(2);
const N = Number(process.env.N ?? 300);
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'hxdesk-ab-http-'));
const agent = new http.Agent({ keepAlive: true, maxSockets: 2 });

function get(port, p, headers = {}) {
  return new Promise((resolve, reject) => {
    const r = http.get({ host: '127.0.0.1', port, path: p, agent, headers }, (m) => {
      m.resume();
      m.on('end', () => resolve(m.statusCode));
    });
    r.on('error', reject);
  });
}

/** A copy of the dataset with a token (made by `tree`'s own code, which migrates the copy), served by `tree`. */
async function start(tree, name, port) {
  const dir = path.join(tmp, name);
  fs.mkdirSync(dir);
  fs.copyFileSync(source, path.join(dir, 'hxdesk.db'));
  const made = await appInProcess(path.resolve(tree), path.join(dir, 'hxdesk.db'), 'ab-http');
  await made.close();
  const env = {
    ...process.env,
    NODE_ENV: 'production',
    DATA_DIR: dir,
    PORT: String(port),
    HOST: '127.0.0.1',
    MAILGATE_TOKEN: 'x'.repeat(32),
    MAIL_ADDRESSES: 'support@bench.example',
  };
  const child = spawn('node', [path.join(tree, 'dist/server.js')], { env, stdio: ['ignore', 'ignore', 'inherit'] });
  for (let i = 0; i < 300; i++) {
    try {
      await get(port, '/healthz');
      return { child, token: made.token, port };
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error(`${tree} did not start`);
}

const A = await start(a, 'a', 45201);
const B = await start(b, 'b', 45202);
const p50 = (x) => x.sort((p, q) => p - q)[Math.floor(x.length / 2)];
try {
  for (const url of urls) {
    const times = new Map([
      [A, []],
      [B, []],
    ]);
    const [p, kind] = url.split(' ');
    const accept = kind === 'html' ? 'text/html' : 'application/json';
    const one = async (s, keep) => {
      const t = performance.now();
      const code = await get(s.port, p, { authorization: `Bearer ${s.token}`, accept });
      if (code !== 200) throw new Error(`${url}: ${code}`);
      if (keep) times.get(s).push(performance.now() - t);
    };
    for (let i = 0; i < 20; i++) {
      await one(A, false);
      await one(B, false);
    }
    for (let i = 0; i < N; i++) {
      // Alternate which server goes first.
      const [x, y] = i % 2 ? [A, B] : [B, A];
      await one(x, true);
      await one(y, true);
    }
    const pa = p50(times.get(A));
    const pb = p50(times.get(B));
    console.log(`${url}\tA ${pa.toFixed(2)}\tB ${pb.toFixed(2)}\tB÷A ${(pb / pa).toFixed(2)}`);
  }
} finally {
  A.child.kill();
  B.child.kill();
  fs.rmSync(tmp, { recursive: true, force: true });
}
process.exit(0);
