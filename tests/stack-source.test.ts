import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sourceFileAt, withSourceFiles } from '../src/stackSource.js';
import { TEST_DIST } from './helpers/buildOnce.js';

// Decision 091: the server runs as one bundled module, so a stack frame names dist/server.js and
// a line in it. sourceFileAt says which source file that line came from (a retried unit of
// work's operation on PostgreSQL is named from its stack; an unhandled error's log line names
// the source files of its frames).

const bundle = path.join(TEST_DIST, 'server.js'); // the run's build (tests/helpers/buildOnce.ts), as npm start's
const lines = fs.readFileSync(bundle, 'utf8').split('\n');
const lineOf = (pattern: RegExp) => {
  const i = lines.findIndex((l) => pattern.test(l));
  if (i < 0) throw new Error(`no line matches ${pattern} in ${bundle}`);
  return i + 1;
};
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'hxdesk-stack-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('the source file of a line of the bundled server', () => {
  it('names the file a function of the bundle came from, by path or by file: URL', () => {
    const at = lineOf(/^async function updateUser\(/);
    expect(sourceFileAt(bundle, at)).toBe('src/domain/users.ts');
    expect(sourceFileAt(`file://${bundle}`, at + 1)).toBe('src/domain/users.ts');
    expect(sourceFileAt(bundle, lineOf(/^function operationAt\(/))).toBe('src/db/postgres/retries.ts');
  });

  it('names nothing for a file that is not a bundle, even one with a line that looks like a mark', () => {
    const plain = path.join(tmp, 'plain.js');
    fs.writeFileSync(plain, 'const a = 1;\n// src/domain/users.ts\nconst b = 2;\n');
    expect(sourceFileAt(plain, 3)).toBeNull();
    expect(sourceFileAt(path.join(tmp, 'missing.js'), 1)).toBeNull();
    expect(sourceFileAt('node:internal/process/task_queues', 95)).toBeNull();
  });

  it('adds the source file to each frame of a stack that is in a bundle, and leaves the others', () => {
    const at = lineOf(/^async function updateUser\(/);
    const stack = [
      'Error: boom',
      `    at updateUser (file://${bundle}:${at + 2}:11)`,
      '    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)',
      `    at file://${bundle}:${at + 3}:3`,
    ].join('\n');
    expect(withSourceFiles(stack)!.split('\n')).toEqual([
      'Error: boom',
      `    at updateUser (file://${bundle}:${at + 2}:11) [src/domain/users.ts]`,
      '    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)',
      `    at file://${bundle}:${at + 3}:3 [src/domain/users.ts]`,
    ]);
    expect(withSourceFiles(undefined)).toBeUndefined();
  });
});
