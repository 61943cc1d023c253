import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.{ts,tsx}'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // Each test file starts its own server on its own SQLite file; two cores, two workers.
    maxWorkers: 2,
  },
});
