#!/usr/bin/env node
// @ts-check
// hxdesk: the administrator's command (docs/decisions/024). `hxdesk serve` starts the server as
// `npm start` does: compile src/ to dist/ when a source changed (when TypeScript is installed; an install without dev
// dependencies runs the dist/ it shipped), then run dist/server.js with npm start's Node flags.
// Every other command is src/cli.ts, run from the sources through tsx (a runtime dependency),
// so it always matches the source tree it sits in; from dist/cli.js when there are no sources.
// Plain JavaScript on purpose: it runs from a fresh clone with no build step.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildIfChanged } from '../scripts/build-if-changed.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);

/** @param {string} message @returns {never} */
function fail(message, status = 1) {
  process.stderr.write(`hxdesk: ${message}\n`);
  process.exit(status);
}

/** Where a package's file is, or null when it is not installed. @param {string} id */
function resolved(id) {
  try { return require.resolve(id); } catch { return null; }
}

// The Node flags of package.json's "start" script: keep the two the same.
const START_FLAGS = ['--max-semi-space-size=8', '--heap-growing-percent=50'];

/** `hxdesk serve`: build as npm's prestart does, then run the server in a child that gets our signals. */
function serve(/** @type {string[]} */ argv) {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write('Usage: hxdesk serve\n\nStarts the server as `npm start` does; every setting comes from the environment (see the README).\n');
    return;
  }
  if (argv.length > 0) fail(`serve takes no arguments, got ${argv.join(' ')} (settings are environment variables: PORT=8080 hxdesk serve)`, 2);
  const tsc = resolved('typescript/bin/tsc');
  const server = path.join(root, 'dist', 'server.js');
  if (tsc && fs.existsSync(path.join(root, 'src', 'server.ts'))) {
    // Only when a source changed since the last build (docs/decisions/057), as npm start's prestart.
    const built = buildIfChanged(root, { log: (line) => process.stderr.write(`${line}\n`) });
    if (built.status !== 0) fail(`building the server failed (exit ${built.status}; the lines above say why)`);
  } else if (!fs.existsSync(server)) {
    fail(`${server} is missing and TypeScript is not installed to build it; run npm install, or npm run build where it is`);
  }
  const child = spawn(process.execPath, [...START_FLAGS, server], { cwd: process.cwd(), stdio: 'inherit' });
  // A supervisor stops us (the process it started); the server shuts down cleanly on these.
  for (const signal of /** @type {const} */ (['SIGINT', 'SIGTERM', 'SIGHUP'])) {
    process.on(signal, () => { if (child.exitCode === null) child.kill(signal); });
  }
  child.on('error', (e) => fail(`cannot start the server: ${e.message}`));
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 128 + (/** @type {Record<string, number>} */ ({ SIGINT: 2, SIGTERM: 15, SIGHUP: 1 })[signal] ?? 1) : 1)));
}

async function run() {
  const argv = process.argv.slice(2);
  if (argv[0] === 'serve') return serve(argv.slice(1));
  const source = path.join(root, 'src', 'cli.ts');
  let cli;
  // HXDESK_CLI_FROM names a compiled cli.js to run instead (the test suite compiles src/ once for all its processes).
  const from = process.env.HXDESK_CLI_FROM;
  if (from) {
    if (!fs.existsSync(from)) fail(`HXDESK_CLI_FROM=${from} does not exist`);
    cli = await import(pathToFileURL(path.resolve(from)).href);
  } else if (fs.existsSync(source) && resolved('tsx/esm/api')) {
    const { register } = await import('tsx/esm/api');
    register({ tsconfig: path.join(root, 'tsconfig.json') });
    cli = await import(pathToFileURL(source).href);
  } else if (fs.existsSync(path.join(root, 'dist', 'cli.js'))) {
    cli = await import(pathToFileURL(path.join(root, 'dist', 'cli.js')).href);
  } else {
    fail(`neither ${source} with tsx nor a compiled dist/cli.js is here; run npm install`);
  }
  process.exitCode = await cli.main(argv);
}

run().catch((/** @type {Error} */ e) => fail(`unexpected error: ${e?.message ?? e}`));
