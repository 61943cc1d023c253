// `hxdesk <command>`: the administrator's command line (SPEC C6, docs/decisions/024). bin/hxdesk.js
// starts the server itself for `serve` and hands every other command to main() below.
// Every failure is one line on stderr and exit status 1 (2 for a misused command line).
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import type { Actor } from './domain/actor.js';
import { loadEnv, type Env } from './env.js';

// The store and the domain are loaded by the command that needs them: `--help` and a misused
// command line answer without loading either (about half of a run's start-up).
const store = () => import('./db/store.js');

export const USAGE = `Usage: hxdesk <command> [options]

Commands:
  serve                          start the server (as npm start does)
  backup <file> [--force]        write a consistent copy of the database to <file>, also while
                                 the server runs; --force overwrites an existing <file>
  restore <file>                 put a backup in place of the database (stop the server first);
                                 the current database is kept in DATA_DIR/backups/
  copy-store --to <postgres-url> [--from <file>]
                                 copy the SQLite database, every row with its id, into an
                                 empty PostgreSQL database (stop the server first); see
                                 hxdesk copy-store --help
  reset-password <email> [--password-stdin]
                                 set a new password for a user, sign them out everywhere and
                                 lift their sign-in lockout; prints a generated password
                                 unless one is read from stdin
  help                           show this text (also --help, -h)

Settings come from the environment, as for the server: DATA_DIR (default ./data) holds
the database hxdesk.db and its backups/.
Exit status: 0 done, 1 failed, 2 wrong use of the command line.`;

/** A failure to report as one line, with its exit status. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly status = 1,
  ) {
    super(message);
  }
}
const usageError = (message: string) => new CliError(`${message} (see hxdesk --help)`, 2);

interface Io {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
}

/** The settings the server would use; a bad one is reported on one line. */
function settings(): Env {
  try {
    return loadEnv();
  } catch (e) {
    throw new CliError((e as Error).message.replace(/:\n\s*/, ': ').replace(/\n\s*/g, '; '));
  }
}

/** The store must already exist: these commands never create an empty one. */
function existingStore(env: Env): string {
  if (env.DATABASE_URL)
    throw new CliError(
      'the store is PostgreSQL (DATABASE_URL is set): back it up and restore it with pg_dump and pg_restore',
    );
  if (!fs.existsSync(env.dbPath))
    throw new CliError(
      `no database at ${env.dbPath} (DATA_DIR=${env.DATA_DIR}); set DATA_DIR to the server's data directory`,
    );
  return env.dbPath;
}

/** parseArgs with our messages: one positional argument, the given flags. */
function args(argv: string[], name: string, flags: Record<string, { type: 'boolean' }>, positional: string) {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: true,
      options: { ...flags, help: { type: 'boolean', short: 'h' } },
    });
  } catch (e) {
    throw usageError(`${name}: ${(e as Error).message.replace(/\. To specify a positional.*$/s, '')}`);
  }
  if (parsed.values.help) return null;
  if (parsed.positionals.length === 0) throw usageError(`${name}: missing ${positional}`);
  if (parsed.positionals.length > 1)
    throw usageError(`${name}: one ${positional} only, got ${parsed.positionals.length} arguments`);
  return { values: parsed.values as Record<string, boolean | undefined>, arg: parsed.positionals[0] };
}

const kib = (bytes: number) =>
  bytes < 1024 * 1024 ? `${Math.ceil(bytes / 1024)} KiB` : `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

async function backup(argv: string[], io: Io): Promise<void> {
  const a = args(argv, 'backup', { force: { type: 'boolean' } }, '<file> to write');
  if (!a) return io.stdout(`${USAGE}\n`);
  const env = settings();
  const { backupDatabase } = await store();
  const done = await backupDatabase(existingStore(env), a.arg, { force: a.values.force });
  io.stdout(
    `Backed up ${env.dbPath} to ${done.file} (${kib(done.bytes)}); restore it with: hxdesk restore ${done.file}\n`,
  );
}

async function restore(argv: string[], io: Io): Promise<void> {
  const a = args(argv, 'restore', {}, '<file> to restore');
  if (!a) return io.stdout(`${USAGE}\n`);
  const env = settings();
  const { restoreDatabase } = await store();
  const done = await restoreDatabase(a.arg, env.dbPath);
  const lines = [`Restored ${a.arg} into ${done.restored}.`];
  if (done.previous) lines.push(`The database it replaced is kept as ${done.previous}.`);
  if (done.pending.length > 0)
    lines.push(
      `It predates this version's schema: the server migrates it when it starts (${done.pending.join(', ')}).`,
    );
  lines.push('Start the server to use it.');
  io.stdout(`${lines.join('\n')}\n`);
}

/** Reads the whole of stdin; the password is its first line. */
async function readPassword(stdin: Io['stdin']): Promise<string> {
  if (stdin.isTTY)
    throw usageError(
      'reset-password: --password-stdin reads the password from a pipe (printf %s "$PW" | hxdesk reset-password …)',
    );
  const chunks: Buffer[] = [];
  for await (const c of stdin) chunks.push(Buffer.from(c as Buffer));
  const text = Buffer.concat(chunks).toString('utf8');
  const password = text.replace(/\r?\n$/, '');
  if (/[\r\n]/.test(password))
    throw new CliError('reset-password: the password read from stdin has several lines; pipe the password alone');
  // The rule of the users and settings forms (src/routes/users/schemas.ts).
  if (password.length < 12) throw new CliError('reset-password: the password must be at least 12 characters');
  if (password.length > 1024) throw new CliError('reset-password: the password must be at most 1024 characters');
  return password;
}

/** The actor the domain sees for a change made on the server's own machine by its administrator. */
const COMMAND_LINE: Actor = { id: 0, email: 'hxdesk reset-password', name: 'command line', role: 'admin' };

async function resetPassword(argv: string[], io: Io): Promise<void> {
  const a = args(argv, 'reset-password', { 'password-stdin': { type: 'boolean' } }, '<email>');
  if (!a) return io.stdout(`${USAGE}\n`);
  const env = settings();
  const given = a.values['password-stdin'] ? await readPassword(io.stdin) : undefined;
  const [
    { openStore },
    { count, eq },
    { sessions: sessionsTable },
    { generatePassword },
    { checkThrottle, clearThrottle, throttleKey },
    { findUserByEmail, normalizeEmail, updateUser },
  ] = await Promise.all([
    store(),
    import('drizzle-orm'),
    import('./db/tables.js'),
    import('./domain/secrets.js'),
    import('./domain/throttle.js'),
    import('./domain/users.js'),
  ]);
  // The CLI is handed the store as the server is (decision 065); on SQLite, the file must exist.
  const opened = await openStore(env.DATABASE_URL ? env : { dbPath: existingStore(env) });
  const db = opened.db;
  try {
    const user = await findUserByEmail(db, a.arg);
    if (!user) throw new CliError(`reset-password: no user with the e-mail address ${a.arg.trim()}`);
    const sessions = (await db.select({ n: count() }).from(sessionsTable).where(eq(sessionsTable.user_id, user.id)))[0]
      .n;
    const password = given ?? generatePassword();
    // The domain's own update: it hashes the password and signs the user out everywhere.
    await updateUser(db, COMMAND_LINE, user.id, { password });
    if (given === undefined) io.stdout(`New password for ${user.email}: ${password}\n`);
    else io.stdout(`Password changed for ${user.email}.\n`);
    // The sign-in brake lives in the database (decision 028): lifting it here lifts it for every
    // running server. Guesses at the current password (settings) are forgotten too.
    const login = throttleKey.login(normalizeEmail(user.email));
    const attempts = (await checkThrottle(db, login))?.count ?? 0;
    await clearThrottle(db, login, throttleKey.password(user.id));
    io.stdout(`Signed out of ${sessions} session${sessions === 1 ? '' : 's'}.\n`);
    io.stdout(
      attempts > env.LOGIN_MAX_FAILURES
        ? `Lifted the account's sign-in lockout (${attempts} attempts in the current window; LOGIN_MAX_FAILURES=${env.LOGIN_MAX_FAILURES}).\n`
        : `The account was not locked out of signing in${attempts > 0 ? `; its ${attempts} failed attempt${attempts === 1 ? ' is' : 's are'} forgotten` : ''}.\n`,
    );
    if (user.disabled)
      io.stderr(
        `hxdesk: note: ${user.email} is disabled; an administrator must enable the account before it can sign in\n`,
      );
    if (user.role === 'requester')
      io.stderr(`hxdesk: note: ${user.email} is a requester; the password signs in to the portal only\n`);
  } finally {
    await opened.close();
  }
}

export const COPY_STORE_USAGE = `Usage: hxdesk copy-store --to <postgres-url> [--from <file>]

Moves a SQLite install to PostgreSQL: copies every table of hxdesk's schema from the SQLite
database (DATA_DIR/hxdesk.db, or --from <file>, e.g. a backup) into the PostgreSQL database
at <postgres-url> (postgres://user@host:port/database), keeping every id, message,
attachment, setting, session, API token and intake-log row as it is.

  1. The SQLite file must not be in use: stop the server first (it is refused otherwise:
     what the server writes after the copy would be lost). It must have no migration
     pending: start this version's server on it once, then stop it. It is never written.
  2. The target must be an empty database (createdb hxdesk) on PostgreSQL 14 or newer,
     UTF8, with pg_trgm available; a database holding any table that is not hxdesk's,
     or any row in hxdesk's, is refused and left as it is.
  3. The target is migrated, then every table is copied in one transaction (all or
     nothing), the id sequences are moved past the copied ids, and VACUUM ANALYZE runs.
     The full-text index of SQLite is not copied: PostgreSQL's pg_trgm indexes replace it.

Then start hxdesk with DATABASE_URL=<postgres-url> and the same DATA_DIR (its
webhook-secret file is still read from there when WEBHOOK_SECRET is not set).
The password may be left out of the URL: PGPASSWORD or ~/.pgpass give it (the command
line is visible to other users of the machine).
Exit status: 0 copied, 1 refused or failed (the target then holds no copied row),
2 wrong use of the command line.`;

/** Right-aligned counts in the progress lines. */
const pad = (s: string, n: number) => s + ' '.repeat(Math.max(1, n - s.length));

async function copyStoreCommand(argv: string[], io: Io): Promise<void> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: { to: { type: 'string' }, from: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    });
  } catch (e) {
    throw usageError(`copy-store: ${(e as Error).message.replace(/\. To specify a positional.*$/s, '')}`);
  }
  if (parsed.values.help) return io.stdout(`${COPY_STORE_USAGE}\n`);
  const to = parsed.values.to;
  if (to === undefined || to === '') throw usageError('copy-store: missing --to <postgres-url>');
  const { checkPostgresUrl, copyStore, redactUrl } = await import('./cli/copyStore.js');
  const bad = checkPostgresUrl(to);
  if (bad) throw usageError(`copy-store: ${bad}`);
  const env = settings();
  const from = parsed.values.from ?? env.dbPath;
  if (!parsed.values.from && !fs.existsSync(from))
    throw new CliError(
      `copy-store: no database at ${from} (DATA_DIR=${env.DATA_DIR}); set DATA_DIR to the server's data directory, or give --from <file>`,
    );
  io.stdout(`Copying ${from} to ${redactUrl(to)}\n`);
  const done = await copyStore(from, to, {
    onTable: (t) =>
      io.stdout(
        `  ${pad(t.table, 22)}${String(t.rows).padStart(9)} ${t.rows === 1 ? 'row' : 'rows'}${t.bytes ? `  (${kib(t.bytes)})` : ''}\n`,
      ),
  });
  const seconds = (done.ms / 1000).toFixed(1);
  io.stdout(
    `Copied ${done.rows} rows in ${done.tables.length} tables${done.bytes ? ` (${kib(done.bytes)} of attachments and raw mail)` : ''} in ${seconds} s: ` +
      `ids kept, sequences moved past them${done.vacuumed ? ', VACUUM ANALYZE done' : ''}.\n`,
  );
  if (done.skipped.length)
    io.stdout(
      `Not copied, SQLite's own bookkeeping and search index (pg_trgm indexes search on PostgreSQL): ${done.skipped.join(', ')}.\n`,
    );
  if (done.foreign.length)
    io.stderr(`hxdesk: note: tables in ${from} that are not hxdesk's were not copied: ${done.foreign.join(', ')}\n`);
  for (const w of done.warnings) io.stderr(`hxdesk: note: ${w}\n`);
  io.stdout(`${from} is unchanged. Start the server with DATABASE_URL=${redactUrl(to)} to serve from PostgreSQL.\n`);
}

const COMMANDS: Record<string, (argv: string[], io: Io) => Promise<void>> = {
  backup,
  restore,
  'copy-store': copyStoreCommand,
  'reset-password': resetPassword,
};

/** Runs one command line (without `node` and the script); resolves with the exit status. */
export async function main(
  argv: string[],
  io: Io = {
    stdout: (s) => process.stdout.write(s),
    stderr: (s) => process.stderr.write(s),
    stdin: process.stdin,
  },
): Promise<number> {
  const [command, ...rest] = argv;
  try {
    if (command === undefined) throw usageError('no command given');
    if (command === 'help' || command === '--help' || command === '-h') {
      io.stdout(`${USAGE}\n`);
      return 0;
    }
    const run = COMMANDS[command];
    if (!run)
      throw usageError(
        command.startsWith('-') ? `unknown option ${command} before the command` : `unknown command "${command}"`,
      );
    await run(rest, io);
    return 0;
  } catch (e) {
    const err =
      e instanceof CliError
        ? e
        : e instanceof (await store()).StoreError
          ? new CliError((e as Error).message)
          : new CliError(`${command}: ${(e as Error)?.message ?? e}`);
    io.stderr(`hxdesk: ${err.message.replace(/\s*\n\s*/g, '; ')}\n`);
    return err.status;
  }
}
