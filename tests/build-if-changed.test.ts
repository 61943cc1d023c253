import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildIfChanged } from '../scripts/build-if-changed.mjs';

// SPEC D6 "Start fast" (docs/decisions/057): `npm start` compiles only when something the build
// reads changed since the last successful build. The freshness check runs the real tsc on a small
// temporary project laid out as ours (tsconfig.json, tsconfig.build.json, src/ → dist/).

type Result = { built: boolean; reason: string; status: number };
const build = (root: string): Result => buildIfChanged(root);

let root: string;
const write = (rel: string, text: string) => {
  fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
  fs.writeFileSync(path.join(root, rel), text);
};
const out = (rel: string) => fs.readFileSync(path.join(root, 'dist', rel), 'utf8');

beforeAll(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'hxdesk-build-'));
  write(
    'tsconfig.json',
    JSON.stringify({
      compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', noEmit: true, types: [] },
      include: ['src'],
    }),
  );
  write(
    'tsconfig.build.json',
    JSON.stringify({
      extends: './tsconfig.json',
      compilerOptions: { noEmit: false, outDir: 'dist', rootDir: 'src', noCheck: true },
      include: ['src'],
    }),
  );
  write('package.json', JSON.stringify({ type: 'module' }));
  write('src/server.ts', "import { greeting } from './greeting.js';\nconsole.log(greeting);\n");
  write('src/greeting.ts', "export const greeting: string = 'one';\n");
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

describe('build-if-changed: npm start compiles only what changed', () => {
  it('builds when there was no build; then, with nothing changed, does not run tsc', () => {
    expect(build(root)).toMatchObject({ built: true, status: 0, reason: 'no successful build recorded' });
    expect(out('greeting.js')).toContain("'one'");
    expect(build(root)).toEqual({ built: false, status: 0, reason: 'nothing changed since the last build' });
  });

  it('a changed source is compiled before the start; touching a file without changing it is not a change', () => {
    write('src/greeting.ts', "export const greeting: string = 'two';\n");
    expect(build(root)).toMatchObject({ built: true, status: 0, reason: 'sources changed since the last build' });
    expect(out('greeting.js')).toContain("'two'");
    const later = new Date(fs.statSync(path.join(root, 'src/greeting.ts')).mtimeMs + 60_000);
    fs.utimesSync(path.join(root, 'src/greeting.ts'), later, later);
    expect(build(root).built).toBe(false);
  });

  it('a new file and a deleted file are changes', () => {
    write('src/extra.ts', 'export const extra = 1;\n');
    expect(build(root).built).toBe(true);
    expect(out('extra.js')).toContain('extra = 1');
    expect(build(root).built).toBe(false);
    fs.rmSync(path.join(root, 'src/extra.ts'));
    expect(build(root).built).toBe(true);
    expect(build(root).built).toBe(false);
  });

  it('a change to either tsconfig or to package.json is a change', () => {
    write(
      'tsconfig.build.json',
      JSON.stringify({
        extends: './tsconfig.json',
        compilerOptions: { noEmit: false, outDir: 'dist', rootDir: 'src', noCheck: true, sourceMap: true },
        include: ['src'],
      }),
    );
    expect(build(root).built).toBe(true);
    expect(fs.existsSync(path.join(root, 'dist', 'greeting.js.map'))).toBe(true);
    expect(build(root).built).toBe(false);
    const base = JSON.parse(fs.readFileSync(path.join(root, 'tsconfig.json'), 'utf8'));
    base.compilerOptions.target = 'ES2020';
    write('tsconfig.json', JSON.stringify(base));
    expect(build(root).built).toBe(true);
    expect(build(root).built).toBe(false);
    write('package.json', JSON.stringify({ type: 'module', name: 'renamed' }));
    expect(build(root).built).toBe(true);
    expect(build(root).built).toBe(false);
  });

  it('a missing dist/server.js is built again', () => {
    fs.rmSync(path.join(root, 'dist', 'server.js'));
    expect(build(root)).toMatchObject({ built: true, reason: 'dist/server.js is missing' });
    expect(out('server.js')).toContain('console.log(greeting)');
  });

  it('a failed build records nothing: the next start tries again, and runs once it is fixed', () => {
    write('src/greeting.ts', 'export const greeting: string = ;\n');
    const failed = build(root);
    expect(failed.built).toBe(true);
    expect(failed.status).not.toBe(0);
    expect(build(root)).toMatchObject({ built: true, reason: 'no successful build recorded' });
    write('src/greeting.ts', "export const greeting: string = 'three';\n");
    expect(build(root)).toMatchObject({ built: true, status: 0 });
    expect(out('greeting.js')).toContain("'three'");
    expect(build(root).built).toBe(false);
  });
});

// Each build here runs tsc and then esbuild in a process of its own: under a loaded CI, several per test take their time.
describe('build-if-changed: the server is one module (decision 091)', { timeout: 60_000 }, () => {
  const run = () => spawnSync(process.execPath, [path.join(root, 'dist', 'server.js')], { encoding: 'utf8' });

  it('dist/server.js holds what it imports; the other files tsc emitted stay beside it', () => {
    write('src/greeting.ts', "export const greeting: string = 'four';\n");
    expect(build(root)).toMatchObject({ built: true, status: 0 });
    expect(out('server.js')).toContain('"four"');
    expect(out('server.js')).not.toMatch(/from ["']\.\/greeting\.js["']/);
    expect(out('greeting.js')).toContain("'four'"); // tsc's output, for the files started on their own (workers, the CLI)
    expect(run().stdout).toBe('four\n');
  });

  it("a module's import.meta.url is still its own file under dist/, so files found next to it are found", () => {
    write('src/lib/where.ts', "export const here: string = new URL('./note.txt', import.meta.url).pathname;\n");
    write('src/server.ts', "import { here } from './lib/where.js';\nconsole.log(here);\n");
    expect(build(root)).toMatchObject({ built: true, status: 0 });
    expect(out('server.js')).not.toMatch(/from ["']\.\/lib\/where\.js["']/);
    expect(run().stdout.trim()).toBe(path.join(fs.realpathSync(root), 'dist', 'lib', 'note.txt'));
  });

  it('a source the bundle cannot take fails the build, records nothing, and names the file', () => {
    const lines: string[] = [];
    write('src/lib/where.ts', 'export const here: string = import.meta.dirname;\n');
    const failed = buildIfChanged(root, { log: (line) => lines.push(line) });
    expect(failed).toMatchObject({ built: true });
    expect(failed.status).not.toBe(0);
    expect(lines.join('\n')).toContain('lib/where.ts: use import.meta.url');
    expect(build(root)).toMatchObject({ built: true, reason: 'no successful build recorded' });
    write('src/lib/where.ts', "export const here: string = new URL('.', import.meta.url).pathname;\n");
    write('src/server.ts', "import { greeting } from './greeting.js';\nconsole.log(greeting);\n");
    expect(build(root)).toMatchObject({ built: true, status: 0 });
    expect(run().stdout).toBe('four\n');
  });
});

describe('build-if-changed: two starts at once', () => {
  it('two processes starting together on one install build once; the second waits and imports a whole dist/', async () => {
    write('src/greeting.ts', "export const greeting: string = 'four';\n");
    // Many modules, so that a build takes long enough for the two to overlap.
    for (let i = 0; i < 200; i++) write(`src/m/m${i}.ts`, `export const m${i}: number = ${i};\n`);
    const script = path.join(root, 'race.mjs');
    fs.writeFileSync(
      script,
      `import { buildIfChanged } from ${JSON.stringify(path.resolve('scripts/build-if-changed.mjs'))};\n` +
        `const r = buildIfChanged(${JSON.stringify(root)});\n` +
        `const { m199 } = await import(${JSON.stringify(`${root}/dist/m/m199.js`)});\n` +
        'console.log(JSON.stringify({ ...r, m199 }));\n',
    );
    const run = () =>
      new Promise<Result & { m199: number }>((resolve, reject) => {
        const child = spawn(process.execPath, [script], { stdio: ['ignore', 'pipe', 'inherit'] });
        let text = '';
        child.stdout.on('data', (d: Buffer) => {
          text += d.toString();
        });
        child.on('exit', (code) =>
          code === 0 ? resolve(JSON.parse(text)) : reject(new Error(`exit ${code}: ${text}`)),
        );
      });
    const results = await Promise.all([run(), run()]);
    expect(results.map((r) => r.built).sort()).toEqual([false, true]);
    expect(results.every((r) => r.status === 0 && r.m199 === 199)).toBe(true);
    expect(fs.existsSync(path.join(root, 'dist', '.build-lock'))).toBe(false);
  });

  it('a lock left by a process that died is taken over', () => {
    write('src/greeting.ts', "export const greeting: string = 'five';\n");
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    fs.writeFileSync(path.join(root, 'dist', '.build-lock'), `${dead.stdout}\n`);
    expect(build(root)).toMatchObject({ built: true, status: 0 });
    expect(out('greeting.js')).toContain("'five'");
    expect(fs.existsSync(path.join(root, 'dist', '.build-lock'))).toBe(false);
  });

  it('a lock held by a live process is waited for, and given up on with a message naming it', () => {
    fs.writeFileSync(path.join(root, 'dist', '.build-lock'), `${process.ppid}\n`);
    expect(() => buildIfChanged(root, { lockTimeoutMs: 200 })).toThrow(
      `build: ${path.join(root, 'dist', '.build-lock')} is held by process ${process.ppid}; gave up waiting`,
    );
    fs.rmSync(path.join(root, 'dist', '.build-lock'));
  });
});
