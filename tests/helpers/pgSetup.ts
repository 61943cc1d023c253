import { afterAll } from 'vitest';
import { stopPostgres } from './postgres.js';

// The `postgres` project's setup file: each test file's throwaway cluster goes when the file is done.
afterAll(stopPostgres);
