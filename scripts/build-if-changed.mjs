#!/usr/bin/env node
// @ts-check
// `npm start`'s build step (prestart) and `hxdesk serve`'s (docs/decisions/057): compiles src/ to
// dist/ only when something the build reads changed since the last successful build. A digest of
// every file under src/ (path and content), both tsconfig files, package.json (its "type" decides
// the module format NodeNext emits) and the TypeScript version is
// kept in dist/.build-stamp after a build that succeeded; when it matches (and dist/server.js is
// there) tsc is not run at all — an incremental tsc with nothing to do still reads and hashes
// every source (about 4 s of CPU here). When it does not match, tsc runs incrementally
// (dist/.tsbuildinfo), so it emits only the files that changed; after a failed build, or with
// dist/server.js gone, it emits everything.
// Plain JavaScript on purpose: it runs from a fresh clone with no build step.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BUNDLE_RECIPE, bundleServerSync } from './bundle-server.mjs';

const require = createRequire(import.meta.url);
/** Bumped when what the build runs changes (its flags): every stamp written before is then stale. */
const RECIPE = 'tsc -p tsconfig.build.json --incremental v1';

/** Every file under `dir`, as paths relative to `root` with `/`, sorted. @param {string} root @param {string} dir @returns {string[]} */
function filesUnder(root, dir) {
  /** @type {string[]} */
  const out = [];
  const walk = (/** @type {string} */ d) => {
    let entries;
    try {
      entries = fs.readdirSync(path.join(root, d), { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const rel = `${d}/${e.name}`;
      if (e.isDirectory()) walk(rel);
      else if (e.isFile()) out.push(rel);
    }
  };
  walk(dir);
  return out.sort();
}

/** The TypeScript the build would run: its tsc and version, or null when it is not installed. */
export function typescript() {
  try {
    const pkg = require.resolve('typescript/package.json');
    return {
      tsc: path.join(path.dirname(pkg), 'bin', 'tsc'),
      version: JSON.parse(fs.readFileSync(pkg, 'utf8')).version,
    };
  } catch {
    return null;
  }
}

/**
 * The digest of what a build of `root` reads: every file under src/ (its path and content), the
 * two tsconfig files, package.json, the TypeScript version and the recipe. @param {string} root @param {string} tsVersion
 */
export function inputsDigest(root, tsVersion) {
  const h = createHash('sha256');
  h.update(`${RECIPE}\0${BUNDLE_RECIPE}\0typescript ${tsVersion}\0`);
  for (const rel of [...filesUnder(root, 'src'), 'tsconfig.json', 'tsconfig.build.json', 'package.json']) {
    h.update(`${rel}\0`);
    try {
      h.update(fs.readFileSync(path.join(root, rel)));
    } catch {
      h.update('(missing)');
    }
    h.update('\0');
  }
  return h.digest('hex');
}

/**
 * Builds `root`'s dist/ when its inputs changed since the last successful build; says whether it
 * built and why. A failed build leaves no stamp, so the next start tries again.
 * @param {string} root
 * @param {{ log?: (line: string) => void, lockTimeoutMs?: number }} [opts]
 * @returns {{ built: boolean, reason: string, status: number }}
 */
export function buildIfChanged(root, opts = {}) {
  const ts = typescript();
  if (!ts) return { built: false, reason: 'TypeScript is not installed', status: 1 };
  const dist = path.join(root, 'dist');
  // Two processes starting at once on one install (two `hxdesk serve`, several workers of one
  // deployment) must not both compile into dist/: tsc truncates each file before writing it, so
  // the other one could import a half-written module. The second waits for the first, then finds
  // the stamp current and does not build.
  const release = lock(dist, opts.lockTimeoutMs ?? 300_000);
  try {
    return buildLocked(root, dist, ts, opts);
  } finally {
    release();
  }
}

/** Whether a process with this pid is alive on this machine. @param {number} pid */
function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return /** @type {NodeJS.ErrnoException} */ (e).code === 'EPERM';
  }
}

/**
 * Takes dist/.build-lock (created exclusively, holding the pid); waits while a live process holds
 * it, takes over one left by a process that died. @param {string} dist @param {number} timeoutMs
 * @returns {() => void} the release
 */
function lock(dist, timeoutMs) {
  fs.mkdirSync(dist, { recursive: true });
  const file = path.join(dist, '.build-lock');
  const deadline = Date.now() + timeoutMs;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (;;) {
    try {
      fs.writeFileSync(file, `${process.pid}\n`, { flag: 'wx' });
      return () => fs.rmSync(file, { force: true });
    } catch (e) {
      if (/** @type {NodeJS.ErrnoException} */ (e).code !== 'EEXIST') throw e;
    }
    let holder = Number.NaN;
    let age = 0;
    try {
      holder = Number.parseInt(fs.readFileSync(file, 'utf8'), 10);
      age = Date.now() - fs.statSync(file).mtimeMs;
    } catch {
      continue; // released between the two calls
    }
    // A dead holder's lock is stale (so is one naming this process: this call is not reentrant,
    // so the pid was reused); a lock without a pid is being written this instant, or was left
    // by a process that died doing it.
    const stale = Number.isInteger(holder) ? holder === process.pid || !alive(holder) : age > 10_000;
    if (stale) {
      fs.rmSync(file, { force: true });
      continue;
    }
    if (Date.now() > deadline) throw new Error(`build: ${file} is held by process ${holder}; gave up waiting`);
    Atomics.wait(pause, 0, 0, 50);
  }
}

/** buildIfChanged's work, under the lock. @param {string} root @param {string} dist @param {{ tsc: string, version: string }} ts @param {{ log?: (line: string) => void }} opts */
function buildLocked(root, dist, ts, opts) {
  const stampFile = path.join(dist, '.build-stamp');
  const digest = inputsDigest(root, ts.version);
  let stamp = null;
  try {
    stamp = fs.readFileSync(stampFile, 'utf8').trim();
  } catch {
    /* never built, or the last build failed */
  }
  const reason =
    stamp === null
      ? 'no successful build recorded'
      : !fs.existsSync(path.join(dist, 'server.js'))
        ? 'dist/server.js is missing'
        : stamp !== digest
          ? 'sources changed since the last build'
          : null;
  if (reason === null) return { built: false, reason: 'nothing changed since the last build', status: 0 };
  opts.log?.(`build: ${reason}; compiling src/ to dist/ (incremental)`);
  fs.rmSync(stampFile, { force: true });
  // tsc's incremental record says what it emitted, not what is still in dist/: unless the last
  // build succeeded and only sources changed since, it is dropped and everything is emitted.
  if (stamp === null || reason !== 'sources changed since the last build')
    fs.rmSync(path.join(dist, '.tsbuildinfo'), { force: true });
  const run = spawnSync(
    process.execPath,
    [
      ts.tsc,
      '-p',
      path.join(root, 'tsconfig.build.json'),
      '--incremental',
      '--tsBuildInfoFile',
      path.join(dist, '.tsbuildinfo'),
    ],
    { cwd: root, stdio: 'inherit' },
  );
  let status = run.error ? 1 : (run.status ?? 1);
  // Then the server's entry as one module over tsc's dist/server.js (bundle-server.mjs, decision 091).
  if (status === 0) {
    const bundled = bundleServerSync(root, dist);
    if (!bundled.ok) {
      opts.log?.(`build: bundling src/server.ts failed:\n${bundled.message}`);
      status = 1;
    }
  }
  // The digest taken before tsc ran: a file edited during the build makes the next start build again.
  if (status === 0) fs.writeFileSync(stampFile, `${digest}\n`);
  return { built: true, reason, status };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  const result = buildIfChanged(root, { log: (line) => process.stderr.write(`${line}\n`) });
  if (result.status !== 0) {
    process.stderr.write(`build: ${result.built ? 'the build failed (above)' : result.reason}\n`);
    process.exit(result.status);
  }
}
