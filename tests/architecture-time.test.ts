import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

// ARCHITECTURE and decision 047: nothing but the clock (src/domain/clock.ts) reads the time for
// business: the domain, the scrips, the events and the routes ask the store's clock (nowIso,
// nowMs, clockOf), so a test clock (SPEC D2) moves all of it. What is machinery, not business —
// log lines, retry pauses, liveness, the delivery schedule — reads the real time, in the files
// below or on a line marked `// real time: <why>` (on it or just above it).

const root = path.resolve(import.meta.dirname, '..');
const files = (dir: string): string[] => fs.readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((e) =>
  e.isDirectory() ? files(path.join(dir, e.name)) : /\.tsx?$/.test(e.name) ? [path.join(dir, e.name)] : []);

/** Files that read only the real time, and why. */
const REAL_TIME_FILES: Record<string, string> = {
  'src/domain/clock.ts': 'the clock itself',
  'src/log.ts': 'the time of a log line, and the window that holds back repeated lines (the workers give the store\'s clock)',
  'src/server.ts': 'the time of a log line written before the logger exists',
  'src/events/hub.ts': 'liveness of live updates: presence and typing expire after seconds of real time',
  'src/scrips/delivery.ts': 'the delivery worker\'s own turns and waits (the outbox schedule, in real time)',
  'src/db/storageWatch.ts': 'how often a failed store is probed again',
  'src/db/sqlite/checkpointer.ts': 'the pause after a failed WAL checkpoint',
  'src/db/sqlite/client.ts': 'the pause after a failed search-index run',
  'src/db/sqlite/backup.ts': 'the name of a backup file: when it was taken, on the machine',
};

/** Reading the time: Date.now (called or handed on), new Date() and Date() with nothing to convert. */
const READS_TIME = /\bDate\.now\b|\bnew Date\(\s*\)|(?<![\w.])Date\(\s*\)/;
const MARK = /\/\/ real time: \S/;

describe('time', () => {
  const sources = files('src').filter((f) => !REAL_TIME_FILES[f]);

  it.each(sources)('%s reads business time from the clock only', (file) => {
    const lines = fs.readFileSync(path.join(root, file), 'utf8').split('\n');
    const hits = lines.flatMap((line, i) => {
      const code = line.trimStart();
      if (code.startsWith('//') || code.startsWith('*') || code.startsWith('/*')) return [];
      if (!READS_TIME.test(line) || MARK.test(line) || MARK.test(lines[i - 1] ?? '')) return [];
      return [`${file}:${i + 1}: ${code}`];
    });
    expect(hits, 'reads the time: use nowIso/nowMs/clockOf of src/domain/clock.ts, or mark real time with `// real time: <why>`').toEqual([]);
  });

  it('the list of real-time files names files that exist', () => {
    for (const f of Object.keys(REAL_TIME_FILES)) expect(fs.existsSync(path.join(root, f)), f).toBe(true);
  });
});
