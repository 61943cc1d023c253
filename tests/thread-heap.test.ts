import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { startFlags } from '../bench/server.js';

// Decision 115: a worker thread's young generation is its pool's, not npm start's. A process
// started with npm start's flag makes an isolate that allocates steadily (objects kept a while,
// as a list's rows are), before and after threadLimits(), and reports each one's new space.

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const flags = startFlags(root);

const CHURN = `
const newSpaceMb = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size / 1048576;
let kept = [];
for (let i = 0; i < 3e6; i++) { kept.push({ i, s: 'row ' + i }); if (kept.length > 2e5) kept = []; }
`;

const script = `
import v8 from 'node:v8';
import { Worker } from 'node:worker_threads';
import { threadLimits } from ${JSON.stringify(pathToFileURL(path.join(root, 'src/threadHeap.ts')).href)};
const inThread = (resourceLimits) =>
  new Promise((resolve, reject) => {
    const w = new Worker(${JSON.stringify(`const v8 = require('node:v8');${CHURN}require('node:worker_threads').parentPort.postMessage(newSpaceMb());`)}, { eval: true, resourceLimits });
    w.once('message', resolve);
    w.once('error', reject);
  });
const asked = await inThread({ maxYoungGenerationSizeMb: 6 });
const own = await inThread(threadLimits());
const mail = await inThread(threadLimits({ maxOldGenerationSizeMb: 512 }));
${CHURN}
process.stdout.write(JSON.stringify({ asked, own, mail, main: newSpaceMb() }));
`;

describe('worker threads size their own young generation (decision 115)', () => {
  it("under npm start's flags, a thread made through threadLimits() keeps ~4 MB of new space; the HTTP thread keeps its 16", () => {
    expect(flags.some((f) => f.startsWith('--max-semi-space-size='))).toBe(true);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hxdesk-thread-heap-'));
    const file = path.join(dir, 'threads.mjs');
    fs.writeFileSync(file, script);
    const run = spawnSync(process.execPath, [...flags, '--import', 'tsx', file], { cwd: root, encoding: 'utf8' });
    fs.rmSync(dir, { recursive: true, force: true });
    expect(run.stderr).toBe('');
    const heap = JSON.parse(run.stdout) as { asked: number; own: number; mail: number; main: number };
    // What the pools had before: the process's flag wins over the thread's own limit.
    expect(heap.asked).toBeGreaterThanOrEqual(16);
    expect(heap.own).toBeLessThanOrEqual(5);
    expect(heap.mail).toBeLessThanOrEqual(5);
    // The HTTP thread's heap was made with the flag, and keeps it.
    expect(heap.main).toBeGreaterThanOrEqual(16);
  });

  it('every worker thread src/ makes is made with threadLimits()', () => {
    const files = (fs.readdirSync(path.join(root, 'src'), { recursive: true }) as string[]).filter((f) =>
      /\.tsx?$/.test(f),
    );
    const made: string[] = [];
    for (const f of files) {
      const text = fs.readFileSync(path.join(root, 'src', f), 'utf8');
      for (const m of text.matchAll(/new (Worker|Piscina)\(/g)) {
        // The options object that follows, up to the call's end.
        const call = text.slice(m.index, text.indexOf('\n  }', m.index) + 4);
        made.push(`${f} ${m[1]}: ${/resourceLimits: threadLimits\(/.test(call) ? 'threadLimits' : 'its own'}`);
      }
    }
    expect(made.sort()).toEqual([
      'db/postgres/writeApart.ts Worker: threadLimits',
      'db/sqlite/checkpointer.ts Worker: threadLimits',
      'db/sqlite/readers.ts Piscina: threadLimits',
      'mail/reader.ts Piscina: threadLimits',
    ]);
  });
});
