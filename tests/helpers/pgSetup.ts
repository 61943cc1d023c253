import { afterAll } from 'vitest';
import { releasePostgres } from './postgres.js';

// The `postgres` project's setup file: when a test file is done, its databases in the worker's
// cluster go (the cluster stays for the worker's next file; the run stops it: pgRun.ts).
afterAll(releasePostgres);
