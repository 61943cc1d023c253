// node --import tsx bench/mailgate.ts [--root DIR]
// Mail intake alone, on an empty production server (compiled dist/ of DIR, default this tree:
// `npx tsc -p tsconfig.build.json` there first): 400 multipart/alternative messages one after
// another (p50, p95), then 8 clients for 5 s (messages per second). With --root pointing at a
// worktree of another commit, the two can be compared back to back on one machine.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { root as here, startProductionServer } from './server.js';

const { values } = parseArgs({ options: { root: { type: 'string', default: here } } });
const root = path.resolve(values.root);
const TOKEN = 'bench-mailgate-token-0123456789';
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hxdesk-mailgate-'));
const { proc, url } = await startProductionServer(
  dir,
  { MAILGATE_TOKEN: TOKEN, MAIL_SENDER_MAX_PER_HOUR: '10000000', MAIL_ADDRESSES: 'support@example.com' },
  root,
);

let n = 0;
const mail = () =>
  [
    `From: Person ${n % 50} <p${n % 50}@customer.example>`,
    'To: support@example.com',
    `Subject: Bench ${n}`,
    `Message-ID: <b${n++}.${Date.now()}@customer.example>`,
    'MIME-Version: 1.0',
    'Content-Type: multipart/alternative; boundary=x',
    '',
    '--x',
    'Content-Type: text/plain; charset=utf-8',
    '',
    `Hello, the printer on floor ${n} is jammed again.`,
    'Regards',
    '--x',
    'Content-Type: text/html; charset=utf-8',
    '',
    `<p>Hello, the printer on floor ${n} is <b>jammed</b> again.</p><p>Regards</p>`,
    '--x--',
    '',
  ].join('\r\n');
async function post() {
  const res = await fetch(`${url}/mailgate`, {
    method: 'POST',
    body: mail(),
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'message/rfc822' },
  });
  await res.text();
  if (res.status >= 300) throw new Error(`/mailgate answered ${res.status}`);
}

try {
  for (let i = 0; i < 30; i++) await post();
  const latency: number[] = [];
  for (let i = 0; i < 400; i++) {
    const t = performance.now();
    await post();
    latency.push(performance.now() - t);
  }
  latency.sort((a, b) => a - b);
  let done = 0;
  const end = Date.now() + 5000;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (Date.now() < end) {
        await post();
        done++;
      }
    }),
  );
  process.stdout.write(
    `${JSON.stringify({ root, single_p50_ms: +latency[200].toFixed(2), single_p95_ms: +latency[380].toFixed(2), load_per_s: Math.round(done / 5) })}\n`,
  );
} finally {
  proc.kill('SIGKILL');
  fs.rmSync(dir, { recursive: true, force: true });
}
