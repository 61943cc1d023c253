import { defineConfig } from 'vitest/config';
import { pgAvailable } from './tests/helpers/postgres.js';

const shared = {
  // A worker runs its files one after another in one module graph: importing the app and its
  // libraries again for each file cost ~1.6 s a file, ~4 minutes of the run (decision 095). Each
  // file still starts its own server on its own store.
  isolate: false,
  testTimeout: 20_000,
  hookTimeout: 30_000,
  // expect.poll waits for what a page or a worker does next: vitest's default of 1 s is less than
  // a loaded CI machine takes for a debounced search's suggestions (tests/ui-links.test.ts missed
  // it once). A longer wait only delays a failure; it passes nothing that would fail.
  expect: { poll: { timeout: 10_000 } },
};

// Files whose subject is SQLite itself (its file, WAL, FTS5, plans, backups, migrations, CLI
// over the file) or that never start a server: not run again on PostgreSQL.
const sqliteOnly = [
  'tests/checkpointer.test.ts',
  'tests/cli-copy-store.test.ts',
  'tests/cli-migration-backups.test.ts',
  'tests/cli-serve.test.ts',
  'tests/cli.test.ts',
  'tests/group-commit.test.ts',
  'tests/sqlite-rows.test.ts',
  'tests/pg-rows.test.ts',
  'tests/mail-out-html.test.ts',
  'tests/mailgate-exim.test.ts',
  'tests/mailgate-start.test.ts',
  'tests/migration-0013.test.ts',
  'tests/multi-process.test.ts',
  'tests/pg-helper.test.ts',
  'tests/pg-large-writes.test.ts',
  'tests/pg-live-processes.test.ts',
  'tests/pg-config-fresh.test.ts',
  'tests/pg-read-share.test.ts',
  'tests/pg-round-trips.test.ts',
  'tests/pg-schema.test.ts',
  'tests/pg-store-plans.test.ts',
  'tests/pg-ranged-words.test.ts',
  'tests/people-search-plans.test.ts',
  'tests/pg-units-of-work.test.ts',
  'tests/pg-writers.test.ts',
  'tests/query-plans.test.ts',
  // A period's plans on a SQLite file it opens itself (decision 109).
  'tests/period-lists.test.ts',
  'tests/parts-kept.test.ts',
  'tests/reader-threads.test.ts',
  'tests/search-index.test.ts',
  // Two servers side by side on stores it opens itself (SQLite and PostgreSQL, two SQLite files).
  'tests/stores-side-by-side.test.ts',
  // Lists read while another connection commits, on stores it opens itself (SQLite and PostgreSQL).
  'tests/list-snapshot.test.ts',
  'tests/start.test.ts',
  'tests/time-format.test.ts',
  'tests/sla-clock.test.ts',
  'tests/business-time.test.ts',
  // The SVG charts are pure views: no server, no store (decision 083).
  'tests/charts.test.ts',
  // The build's freshness check on a small project of its own: no server, no store.
  'tests/build-if-changed.test.ts',
  // The HTTP server's own guards (header and body timeouts, 408): the same code before either store is reached.
  'tests/slow-clients.test.ts',
  // Which source file a line of the bundled server came from (decision 091): no server, no store.
  'tests/stack-source.test.ts',
  // A worker thread's heap under npm start's flags (decision 115): no server, no store.
  'tests/thread-heap.test.ts',
];

// Files that only drive Chromium: what they check is the browser side (htmx, layout, focus,
// accessible names), over routes the HTTP suite covers on both stores. Run once, on SQLite, to
// keep the whole CI run (two stores) within its 25 minutes.
// (ui-people's HTTP half runs on both; its browser half is marked SQLite-only in the file.)
const browserOnly = [
  'tests/ui-tags.test.ts',
  'tests/ui-time.test.ts',
  'tests/ui-sla.test.ts',
  'tests/portal-browser.test.ts',
  'tests/ui-portal-account.test.ts',
  'tests/ui-admin.test.ts',
  'tests/ui-calendars.test.ts',
  'tests/ui-idle-preview.test.ts',
  'tests/ui-request-errors.test.ts',
  'tests/ui-settings.test.ts',
  'tests/ui-tickets.test.ts',
  'tests/ui-reply-box.test.ts',
  'tests/ui-triage.test.ts',
  'tests/ui-collision.test.ts',
  'tests/ui-screens.test.ts',
  'tests/ui-keyboard.test.ts',
  'tests/ui-triage-walkthrough.test.ts',
  'tests/ui-live-ticket.test.ts',
  'tests/ui-live-list.test.ts',
  'tests/ui-outside-senders.test.ts',
  'tests/ui-api-docs.test.ts',
  'tests/ui-mail-addresses.test.ts',
  'tests/ui-drafts-unread.test.ts',
  'tests/ui-password-reset.test.ts',
  'tests/ui-convo.test.ts',
  'tests/ui-safe-edits.test.ts',
  'tests/ui-lists.test.ts',
  'tests/ui-snooze.test.ts',
  'tests/ui-links.test.ts',
  'tests/ui-merge.test.ts',
  'tests/ui-lifecycles.test.ts',
  'tests/ui-charts.test.ts',
  'tests/ui-csat.test.ts',
  'tests/ui-reports.test.ts',
];

// Files that compare two latency measurements (SPEC D1: small writes while large ones run here vs
// elsewhere): run once, after every other file, so that the rest of the suite's bursts of CPU do
// not fall into one phase and not the other (CI saw p95 2.12× with a browser test beside it).
const alone = ['tests/pg-large-writes.test.ts'];

// The PostgreSQL project runs wherever a throwaway cluster can be started (Debian's postgresql
// package; scripts/test-deps.sh installs it). HXDESK_TEST_POSTGRES=0 leaves it out (a quick local
// run); HXDESK_TEST_POSTGRES=1 requires it (CI: a machine without it fails instead of quietly
// testing one store).
const pgWanted = process.env.HXDESK_TEST_POSTGRES;
if (pgWanted !== undefined && pgWanted !== '' && pgWanted !== '0' && pgWanted !== '1') {
  throw new Error(
    `HXDESK_TEST_POSTGRES must be 0 (SQLite only) or 1 (PostgreSQL required), not ${JSON.stringify(pgWanted)}`,
  );
}
if (pgWanted === '1' && !pgAvailable()) {
  throw new Error(
    'HXDESK_TEST_POSTGRES=1 but no PostgreSQL server binaries were found (apt-get install postgresql, or set PG_BIN)',
  );
}
const onPostgres = pgWanted !== '0' && pgAvailable();

export default defineConfig({
  test: {
    // The server and CLI compiled once, for the tests that start real processes (tests/helpers/buildOnce.ts);
    // the run's PostgreSQL clusters, one per worker slot, stopped at the end (tests/helpers/pgRun.ts).
    globalSetup: ['tests/helpers/buildOnce.ts', 'tests/helpers/pgRun.ts'],
    // Each test file starts its own server on its own SQLite file; two cores, two workers.
    maxWorkers: 2,
    projects: [
      // The whole suite on SQLite (the default store). The browser files stay in this project, among
      // the others: two of them at once (a project of their own ran them so) cost the run ~400 s more.
      {
        test: {
          name: 'sqlite',
          include: ['tests/**/*.test.{ts,tsx}'],
          exclude: alone,
          sequence: { groupOrder: 0 },
          ...shared,
        },
      },
      // Then the HTTP suite on PostgreSQL (SPEC C6), when a throwaway cluster can be started here:
      // every server of a file on a fresh database in its worker's cluster (tests/helpers/server.ts).
      ...(onPostgres
        ? [
            {
              test: {
                name: 'postgres',
                include: ['tests/**/*.test.{ts,tsx}'],
                exclude: [...sqliteOnly, ...browserOnly, ...alone],
                sequence: { groupOrder: 0 },
                env: { HXDESK_TEST_STORE: 'postgres' },
                setupFiles: ['tests/helpers/pgSetup.ts'],
                ...shared,
              },
            },
          ]
        : []),
      // Last, with nothing else running: the files that compare latencies measured in two phases.
      { test: { name: 'alone', include: alone, sequence: { groupOrder: 1 }, ...shared } },
    ],
  },
});
