import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

// What a production install (`npm ci --omit=dev`) brings is what the running server and its
// commands import: every runtime dependency is imported by src/, bin/ or `npm start`'s scripts, and nothing there
// imports a package that is only a development dependency (mailparser reads mail back in tests).

const ROOT = path.resolve(import.meta.dirname, '..');
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

function sources(dir: string): string[] {
  return fs
    .readdirSync(path.join(ROOT, dir), { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile() && /\.(ts|tsx|mjs|js)$/.test(d.name))
    .map((d) => path.join(d.parentPath, d.name));
}
// `npm start`'s own scripts: its build (tsc, then the bundle of decision 091 with esbuild) and the start.
const startScripts = ['start.mjs', 'build-if-changed.mjs', 'bundle-server.mjs'].map((f) =>
  path.join(ROOT, 'scripts', f),
);
const code = [...sources('src'), ...sources('bin'), ...startScripts].map((f) => fs.readFileSync(f, 'utf8')).join('\n');
/** Whether the code names the package as a module specifier (`'pkg'` or `'pkg/sub/path'`). */
const uses = (name: string) =>
  new RegExp(`['"]${name.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}(/[^'"]*)?['"]`).test(code);

describe('dependencies', () => {
  it('every runtime dependency is used by the server or its commands', () => {
    expect(Object.keys(pkg.dependencies).filter((name) => !uses(name))).toEqual([]);
  });

  it('the server and its commands use no development dependency (types aside)', () => {
    // `hxdesk serve` compiles with TypeScript when it is there, and runs dist/ when it is not.
    const optional = ['typescript'];
    expect(
      Object.keys(pkg.devDependencies).filter(
        (name) => !name.startsWith('@types/') && !optional.includes(name) && uses(name),
      ),
    ).toEqual([]);
  });
});
