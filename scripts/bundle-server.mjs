// @ts-check
// The server's entry as one module (docs/decisions/091): after tsc has emitted src/ to dist/,
// esbuild bundles src/server.ts and the packages it imports into <outDir>/server.js, over tsc's
// own server.js. Node 20 loads ~620 modules for a start otherwise, and its ESM loader spends more
// time finding, reading and linking them (~0.5 s here) than V8 spends compiling them; one file
// skips all of that. Everything else tsc emitted stays (the worker threads' entries, the CLI,
// the migrations' helpers), and a module that finds files relative to itself (static/, the
// migrations, package.json, a worker's entry) still does: its `import.meta.url` is rewritten to
// the URL of its own file under <outDir>, which is where tsc put it.
// Plain JavaScript on purpose: it runs from a fresh clone with no build step.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);

/**
 * Packages left to Node's loader: native code (better-sqlite3), packages that start workers or
 * read files by their own paths (piscina, pino), and the ones imported only
 * when configured (pg, nodemailer, imapflow), which a start without them never loads.
 */
export const EXTERNAL = ['better-sqlite3', 'pg', 'pg-native', 'nodemailer', 'imapflow', 'piscina', 'pino'];

/** Bumped when the bundle's recipe changes (build-if-changed.mjs puts it in its digest). */
export const BUNDLE_RECIPE = 'esbuild src/server.ts → server.js, import.meta.url per file, v1';

/**
 * Bundles `root`/src/server.ts into `outDir`/server.js (and its source map).
 * @param {string} root @param {string} outDir
 * @returns {Promise<{ ok: true } | { ok: false, message: string }>}
 */
export async function bundleServer(root, outDir) {
  /** @type {typeof import('esbuild')} */
  let esbuild;
  try {
    esbuild = require('esbuild');
  } catch (e) {
    return { ok: false, message: `esbuild is not installed (${/** @type {Error} */ (e).message})` };
  }
  const src = path.join(root, 'src');
  const outfile = path.join(outDir, 'server.js');
  /** @type {import('esbuild').Plugin} */
  const ownUrls = {
    name: 'import-meta-url-per-file',
    setup(build) {
      build.onLoad({ filter: /\.(ts|tsx|mts|js|mjs)$/ }, (args) => {
        const rel = path.relative(src, args.path);
        if (rel.startsWith('..') || path.isAbsolute(rel)) return undefined; // a package: esbuild's own loading
        const text = fs.readFileSync(args.path, 'utf8');
        const loader = /** @type {import('esbuild').Loader} */ (
          args.path.endsWith('.tsx') ? 'tsx' : args.path.endsWith('.ts') || args.path.endsWith('.mts') ? 'ts' : 'js'
        );
        if (/import\.meta\.(dirname|filename)\b/.test(text))
          return {
            errors: [
              { text: `${rel}: use import.meta.url (the bundle rewrites it per file; dirname/filename it does not)` },
            ],
          };
        if (!text.includes('import.meta.url')) return { contents: text, loader };
        // The file tsc emitted for this source, relative to the bundle: .ts → .js, .tsx → .js, .mts → .mjs.
        const emitted = rel
          .replace(/\.tsx?$/, '.js')
          .replace(/\.mts$/, '.mjs')
          .split(path.sep)
          .join('/');
        const own = `new URL(${JSON.stringify(`./${emitted}`)}, import.meta.url).href`;
        return { contents: text.replaceAll('import.meta.url', own), loader };
      });
    },
  };
  try {
    await esbuild.build({
      entryPoints: [path.join(src, 'server.ts')],
      outfile,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      tsconfig: path.join(root, 'tsconfig.build.json'),
      external: EXTERNAL,
      sourcemap: true,
      logLevel: 'silent',
      // A CommonJS package bundled into an ES module asks for `require` (of node: modules): one made here.
      // src/stackSource.ts knows a bundle by this first line (keep the two in step).
      banner: {
        js: "import { createRequire as __hxRequire } from 'node:module';\nconst require = __hxRequire(import.meta.url);",
      },
      plugins: [ownUrls],
    });
  } catch (e) {
    const failure = /** @type {import('esbuild').BuildFailure} */ (e);
    const lines = failure.errors?.map((m) => `${m.location ? `${m.location.file}:${m.location.line}: ` : ''}${m.text}`);
    return { ok: false, message: lines?.length ? lines.join('\n') : String(e) };
  }
  return { ok: true };
}

/**
 * bundleServer in a process of its own, for callers that are synchronous (the build of `npm
 * start`, the test run's setup): esbuild runs plugins only in its asynchronous API.
 * @param {string} root @param {string} outDir
 * @returns {{ ok: true } | { ok: false, message: string }}
 */
export function bundleServerSync(root, outDir) {
  const run = spawnSync(process.execPath, [fileURLToPath(import.meta.url), root, outDir], { encoding: 'utf8' });
  if (run.status === 0) return { ok: true };
  return { ok: false, message: (run.stderr || run.error?.message || `exit ${run.status}`).trim() };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [root, outDir] = process.argv.slice(2);
  if (!root || !outDir) {
    process.stderr.write('usage: node scripts/bundle-server.mjs <root> <outDir>\n');
    process.exit(2);
  }
  const result = await bundleServer(path.resolve(root), path.resolve(outDir));
  if (!result.ok) {
    process.stderr.write(`${result.message}\n`);
    process.exit(1);
  }
}
