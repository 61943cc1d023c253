#!/usr/bin/env node
// @ts-check
// `npm start` (docs/decisions/057): compiles src/ to dist/ when something the build reads changed
// since the last successful build (build-if-changed.mjs), then runs dist/server.js in this same
// process — one Node start instead of a prestart process and then the server's.
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildIfChanged } from './build-if-changed.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const built = buildIfChanged(root, { log: (line) => process.stderr.write(`${line}\n`) });
if (built.status !== 0) {
  process.stderr.write(`build: ${built.built ? 'the build failed (above)' : built.reason}\n`);
  process.exit(built.status);
}
await import(pathToFileURL(path.join(root, 'dist', 'server.js')).href);
