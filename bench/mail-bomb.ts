// `node --import tsx bench/mail-bomb.ts [--mib 1,2,20] [--wait 120]`
// The HTML bomb of issue 12: a base64 `text/html` mail of `<div>` repeated to N MiB, posted to
// /mailgate of the real server (compiled, production mode, the Node flags of `npm start`) while
// a second client reads /healthz every 20 ms. Prints, per size: how long /mailgate took and what
// it answered, /healthz latency meanwhile (p50, p99, max), the server's peak RSS and what the
// intake log holds afterwards. Nothing here asserts: it measures.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { root, startProductionServer, statusMb } from './server.js';

const { values } = parseArgs({
  options: { mib: { type: 'string', default: '1,2,20' }, wait: { type: 'string', default: '120' } },
});
const SIZES = values.mib.split(',').map(Number);
const WAIT_MS = Number(values.wait) * 1000;
const TOKEN = 'bench-mailgate-token-0123456789';
const ADMIN_PASSWORD = 'bench-admin-password';

function bomb(mib: number): Buffer {
  // N MiB is the size of the message as sent (base64 with line breaks: ~0.74 N MiB of HTML);
  // 1 MiB is the audit's `<div>` × 160,000.
  const html = Buffer.from('<div>'.repeat(Math.round((mib * 1024 * 1024 * 57) / 78 / 5)));
  const b64 = html.toString('base64').replace(/.{76}/g, '$&\r\n');
  return Buffer.from(
    [
      'From: Bomb <bomb@example.net>',
      'To: support@example.com',
      `Subject: HTML bomb ${mib} MiB`,
      `Message-ID: <bomb-${mib}-${Date.now()}@example.net>`,
      'MIME-Version: 1.0',
      'Content-Type: text/html; charset=utf-8',
      'Content-Transfer-Encoding: base64',
      '',
      b64,
      '',
    ].join('\r\n'),
  );
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(p * s.length))] : NaN;
};

async function main() {
  execFileSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
  const rows: string[] = [];
  for (const mib of SIZES) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hxdesk-bomb-'));
    const { proc, url } = await startProductionServer(dir, {
      MAILGATE_TOKEN: TOKEN,
      ADMIN_EMAIL: 'admin@example.com',
      ADMIN_PASSWORD,
    });
    try {
      const message = bomb(mib);
      const health: number[] = [];
      let done = false;
      const sampler = (async () => {
        while (!done) {
          const t = performance.now();
          try {
            await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(WAIT_MS) });
          } catch {
            /* counted by its time */
          }
          health.push(performance.now() - t);
          await new Promise((r) => setTimeout(r, 20));
        }
      })();
      const t0 = performance.now();
      let answer: string;
      try {
        const res = await fetch(`${url}/mailgate`, {
          method: 'POST',
          body: message,
          signal: AbortSignal.timeout(WAIT_MS),
          headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'message/rfc822' },
        });
        answer = `${res.status} ${(await res.text()).slice(0, 160)}`;
      } catch (e) {
        answer = `no answer after ${WAIT_MS / 1000} s (${(e as Error).name})`;
      }
      const took = performance.now() - t0;
      done = true;
      await sampler;
      // What the intake log kept (signed in as the admin, over HTTP).
      let intake = '?';
      try {
        const login = await fetch(`${url}/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ email: 'admin@example.com', password: ADMIN_PASSWORD }),
          signal: AbortSignal.timeout(WAIT_MS),
        });
        const cookie = login.headers.get('set-cookie')?.split(';')[0] ?? '';
        const list = (await (
          await fetch(`${url}/mail/intake`, { headers: { cookie }, signal: AbortSignal.timeout(WAIT_MS) })
        ).json()) as { intake: { verdict: string; ticket_id: number | null; error: string | null }[] };
        intake = list.intake.map((r) => `${r.verdict}${r.ticket_id ? ` #${r.ticket_id}` : ''}`).join(', ') || 'nothing';
      } catch (e) {
        intake = `unreadable (${(e as Error).message})`;
      }
      const line = {
        mib,
        message_bytes: message.length,
        mailgate_ms: Math.round(took),
        answer,
        healthz_samples: health.length,
        healthz_p50_ms: Math.round(pct(health, 0.5)),
        healthz_p99_ms: Math.round(pct(health, 0.99)),
        healthz_max_ms: Math.round(Math.max(...health)),
        peak_rss_mb: Math.round(statusMb(proc.pid!)),
        intake,
      };
      process.stdout.write(`${JSON.stringify(line)}\n`);
      rows.push(
        `| ${mib} MiB | ${line.mailgate_ms} ms | ${answer.slice(0, 60).replace(/\|/g, '/')} | ${line.healthz_p50_ms} / ${line.healthz_p99_ms} / ${line.healthz_max_ms} ms | ${line.peak_rss_mb} MB | ${intake} |`,
      );
    } finally {
      proc.kill('SIGKILL');
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }
  process.stdout.write(
    [
      '',
      '| bomb | /mailgate | answer | /healthz p50 / p99 / max | peak RSS | intake log |',
      '|---|---|---|---|---|---|',
      ...rows,
      '',
    ].join('\n'),
  );
}

await main();
