// Creates and mails over HTTP, one at a time: the production server (`<tree>/dist/server.js`) on a
// copy of a dataset, one keep-alive client, ROUNDS rounds of N creates and N/2 mails after 50 of
// each (the first round runs cold). Prints each round's p50 and p90 for `/healthz`, `POST /tickets`
// and `POST /mailgate`: issue 32's write targets as the single client of `npm run bench` cannot
// measure them (it runs them once, cold, among its other operations).
//   DATASET=data/bench/dataset-100000/hxdesk.db [TREE=.] [ROUNDS=4] [N=1000] node bench/write-loop.mjs
// Build first (npx tsc -p tsconfig.build.json). The copy goes to a temporary directory.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { appInProcess } from './appInProcess.mjs';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const tree = path.resolve(process.env.TREE ?? root);
const dataset = process.env.DATASET ?? path.join(root, 'data/bench/dataset-100000/hxdesk.db');
const ROUNDS = Number(process.env.ROUNDS ?? 4);
const N = Number(process.env.N ?? 1000);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hxdesk-write-loop-'));
fs.copyFileSync(dataset, path.join(dir, 'hxdesk.db'));
const made = await appInProcess(tree, path.join(dir, 'hxdesk.db'), 'write-loop');
await made.close();
const port = 45301;
const mailgateToken = 'x'.repeat(32);
const child = spawn(process.execPath, [path.join(tree, 'dist/server.js')], {
  env: {
    ...process.env,
    NODE_ENV: 'production',
    DATA_DIR: dir,
    PORT: String(port),
    HOST: '127.0.0.1',
    MAILGATE_TOKEN: mailgateToken,
    MAIL_ADDRESSES: 'support@bench.example',
    SMTP_URL: '',
    IMAP_URL: '',
  },
  stdio: ['ignore', 'ignore', 'inherit'],
});
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const request = (method, p, headers = {}, body = undefined) =>
  new Promise((resolve, reject) => {
    const r = http.request({ host: '127.0.0.1', port, path: p, method, agent, headers }, (m) => {
      m.resume();
      m.on('end', () => resolve(m.statusCode));
    });
    r.on('error', reject);
    if (body) r.write(body);
    r.end();
  });
try {
  for (let i = 0; ; i++) {
    try {
      await request('GET', '/healthz');
      break;
    } catch (e) {
      if (i > 300) throw e;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  const json = {
    authorization: `Bearer ${made.token}`,
    'content-type': 'application/json',
    accept: 'application/json',
  };
  const run = async (label, n, send) => {
    for (let i = 0; i < 50; i++) await send(`w${i}`);
    const times = [];
    for (let i = 0; i < n; i++) {
      const t = performance.now();
      const status = await send(String(i));
      if (status >= 400) throw new Error(`${label}: ${status}`);
      times.push(performance.now() - t);
    }
    times.sort((a, b) => a - b);
    const at = (q) => times[Math.floor(n * q)].toFixed(2);
    console.log(`${label}: p50 ${at(0.5)} ms, p90 ${at(0.9)} ms`);
  };
  for (let round = 1; round <= ROUNDS; round++) {
    console.log(`round ${round}`);
    await run('GET /healthz', N, () => request('GET', '/healthz'));
    await run('POST /tickets', N, (i) =>
      request(
        'POST',
        '/tickets',
        json,
        JSON.stringify({
          queue_id: 1 + (round % 8),
          subject: `The printer on floor ${round}-${i} jams`,
          description: 'It jams on every second page since this morning. Restarting did not help.',
          owner_id: 2,
        }),
      ),
    );
    await run('POST /mailgate', N / 2, (i) =>
      request(
        'POST',
        '/mailgate',
        { authorization: `Bearer ${mailgateToken}`, 'content-type': 'message/rfc822' },
        [
          `From: Customer ${i} <customer-${round}-${i}@example.org>`,
          'To: support@bench.example',
          `Subject: The VPN drops (${round}-${i})`,
          `Message-ID: <write-loop-${round}-${i}-${Date.now()}@example.org>`,
          'Date: Sun, 29 Nov 2026 10:00:00 +0000',
          'Content-Type: text/plain; charset=utf-8',
          '',
          'The VPN drops every ten minutes since the update.',
          '',
        ].join('\r\n'),
      ),
    );
  }
} finally {
  child.kill();
  agent.destroy();
  fs.rmSync(dir, { recursive: true, force: true });
}
