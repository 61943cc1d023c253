import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { bundleServerSync } from '../../scripts/bundle-server.mjs';

/**
 * Where the test run's compiled server and CLI are: tests that start real processes (the server,
 * the `hxdesk` command) run them from here, as `npm start` runs dist/, instead of through tsx —
 * which compiles the whole server again in every process (about 2 s of CPU per start on these
 * machines, and the suite starts some eighty).
 */
export const TEST_DIST = path.resolve(import.meta.dirname, '..', '..', '.test-dist');

/**
 * vitest's globalSetup: compiles src/ once per run with the build's own settings (tsconfig.build.json,
 * no type check: `npm run typecheck` does that), incrementally, into TEST_DIST — a directory of
 * its own, so `hxdesk serve` rebuilding dist/ under a test never changes files another test's
 * process is loading. At the repository's top level, so the compiled files find static/ and the
 * migrations where dist/'s do.
 */
export default function setup(): void {
  const root = path.resolve(import.meta.dirname, '..', '..');
  execFileSync(
    process.execPath,
    [
      path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'),
      '-p',
      path.join(root, 'tsconfig.build.json'),
      '--outDir',
      TEST_DIST,
      '--incremental',
      '--tsBuildInfoFile',
      path.join(TEST_DIST, '.tsbuildinfo'),
    ],
    { cwd: root, stdio: 'inherit' },
  );
  // The server's entry as one module, as `npm start`'s build makes it (decision 091).
  const bundled = bundleServerSync(root, TEST_DIST);
  if (!bundled.ok) throw new Error(`bundling src/server.ts into ${TEST_DIST} failed:\n${bundled.message}`);
}
