import { defineConfig } from 'vitest/config';
import { pgAvailable } from './tests/helpers/postgres.js';

const shared = {
  testTimeout: 20_000,
  hookTimeout: 30_000,
};

// Files whose subject is SQLite itself (its file, WAL, FTS5, plans, backups, migrations, CLI
// over the file) or that never start a server: not run again on PostgreSQL.
const sqliteOnly = [
  'tests/checkpointer.test.ts', 'tests/cli-migration-backups.test.ts', 'tests/cli-serve.test.ts', 'tests/cli.test.ts',
  'tests/group-commit.test.ts', 'tests/mail-out-html.test.ts', 'tests/mailgate-exim.test.ts', 'tests/mailgate-start.test.ts',
  'tests/migration-0013.test.ts', 'tests/pg-helper.test.ts', 'tests/pg-schema.test.ts', 'tests/pg-store-plans.test.ts',
  'tests/query-plans.test.ts', 'tests/start.test.ts',
];

export default defineConfig({
  test: {
    // Each test file starts its own server on its own SQLite file; two cores, two workers.
    maxWorkers: 2,
    projects: [
      // The whole suite on SQLite (the default store).
      { test: { name: 'sqlite', include: ['tests/**/*.test.{ts,tsx}'], ...shared } },
      // Then the HTTP suite on PostgreSQL (SPEC C6), when a throwaway cluster can be started here:
      // every server of a file on a fresh database in that file's cluster (tests/helpers/server.ts).
      // Opt-in for now (HXDESK_TEST_POSTGRES=1): about twenty files still fail on PostgreSQL,
      // most because they check the database with SQLite-only raw SQL (issue 14, closing note).
      ...(pgAvailable() && process.env.HXDESK_TEST_POSTGRES === '1' ? [{
        test: {
          name: 'postgres',
          include: ['tests/**/*.test.{ts,tsx}'],
          exclude: sqliteOnly,
          env: { HXDESK_TEST_STORE: 'postgres' },
          setupFiles: ['tests/helpers/pgSetup.ts'],
          ...shared,
        },
      }] : []),
    ],
  },
});
