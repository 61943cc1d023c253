import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

// What an operator reads first in the README: the opening says what hxdesk runs on (and that
// PostgreSQL and several processes are a setting away), and the settings table names each
// setting once.

const README = fs.readFileSync(path.resolve(import.meta.dirname, '..', 'README.md'), 'utf8');

describe('README', () => {
  it('opens with one process and one SQLite file by default, PostgreSQL and several processes a setting away', () => {
    const opening = README.split('\n\n')[1];
    expect(opening).toMatch(/One Node\.js process and one SQLite file by default/);
    expect(opening).toMatch(/PostgreSQL/);
    expect(opening).toMatch(/several processes/);
    expect(opening).toContain('`DATABASE_URL`');
  });

  it('names each setting once in the settings table', () => {
    const table = README.slice(
      README.indexOf('## Configuration'),
      README.indexOf('\n## ', README.indexOf('## Configuration') + 1),
    );
    const names = [...table.matchAll(/^\| `([A-Z][A-Z0-9_]+)` \|/gm)].map((m) => m[1]);
    expect(names.length).toBeGreaterThan(20);
    expect(names.filter((n, i) => names.indexOf(n) !== i)).toEqual([]);
  });
});
