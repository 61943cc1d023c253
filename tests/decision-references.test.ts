import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

// Decision records are cited by number in code, tests, the README and other records
// (`decision 026`, `docs/decisions/026`). A citation must lead to the record that decides the
// thing cited: to an existing record, and for the subjects below, to the one that is theirs.

const ROOT = path.resolve(import.meta.dirname, '..');
const records = new Map(
  fs
    .readdirSync(path.join(ROOT, 'docs/decisions'))
    .filter((f) => /^\d{3}-.+\.md$/.test(f))
    .map((f) => [f.slice(0, 3), f]),
);

function files(dir: string): string[] {
  const at = path.join(ROOT, dir);
  if (!fs.existsSync(at)) return [];
  return fs
    .readdirSync(at, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile() && /\.(ts|tsx|js|mjs|sql|md|sh|css)$/.test(d.name))
    .map((d) => path.join(d.parentPath, d.name));
}
const cited = [
  ...['src', 'tests', 'static', 'bin', 'scripts', 'docs', 'bench'].flatMap(files),
  path.join(ROOT, 'README.md'),
].flatMap((file) =>
  fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .flatMap((line, i) =>
      [...line.matchAll(/\b(?:decisions?|docs\/decisions\/)\s*(\d{3})\b/g)].map((m) => ({
        where: `${path.relative(ROOT, file)}:${i + 1}`,
        line,
        n: m[1],
      })),
    ),
);

/** Subjects with one record: a line that names the subject and cites a decision cites this one (among others). */
const SUBJECTS: [RegExp, string][] = [
  [/\bstore (port|factory)\b|\bwhich database it is on\b|\bTwo connections\b/i, '026'],
  [/\bscope (loader|a template reads)\b/i, '026'],
  [/\brefused as stale\b|\bcollision\b/i, '038'],
  [/\bbounded templates?\b/i, '040'],
  [/\bhxdesk (backup|restore)\b/i, '024'],
];

describe('decision references', () => {
  it('cite records that exist', () => {
    expect(cited.length).toBeGreaterThan(100);
    expect(cited.filter((c) => !records.has(c.n)).map((c) => `${c.where}: decision ${c.n}`)).toEqual([]);
  });

  it('cite the record of their subject (the store port is 026, collision warnings 038, …)', () => {
    const wrong = cited
      .filter((c) => !c.where.startsWith('tests/decision-references.test.ts'))
      .flatMap((c) => {
        const subject = SUBJECTS.find(([re]) => re.test(c.line));
        if (!subject) return [];
        const all = [...c.line.matchAll(/\b(?:decisions?|docs\/decisions\/)\s*(\d{3})\b/g)].map((m) => m[1]);
        return all.includes(subject[1])
          ? []
          : [`${c.where}: cites ${all.join(', ')} for ${subject[0].source}, whose record is ${subject[1]}`];
      });
    expect([...new Set(wrong)]).toEqual([]);
  });
});
