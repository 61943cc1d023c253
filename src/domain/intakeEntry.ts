import { and, eq } from 'drizzle-orm';
import { type Conn, first, inUnitOfWork, transaction, writeApart } from '../db/port.js';
import { mailIntake } from '../db/tables.js';
import { nowIso } from './clock.js';

// A large message's intake entry, raw bytes included, is written before the unit of work that
// applies the message (SPEC D1: "big message bodies are written without holding the ticket's
// lock longer than needed"; decision 061). The raw message holds every attachment again, base64
// encoded: a mail with 20 MiB of files is a 27 MiB raw message, and written inside the unit of
// work it kept the ticket locked, and (on PostgreSQL) the request thread busy, while it went to
// the database. Written first, on its own (PostgreSQL: from the store's writer thread, like the
// files), it is an entry that says the message is being applied; the unit of work then turns
// that entry into its outcome with a small UPDATE. An outcome that writes no entry (a duplicate)
// or a unit of work that fails deletes it right after. A crash between the two leaves it as it
// was written: a failed entry that says so, with the raw message, which an admin can replay —
// nothing a sender wrote is lost. Small messages are logged inside the unit of work as before (one
// statement, no round trip more).

/** Raw messages from this size on are stored before the unit of work that applies them. */
export const RAW_APART_FROM = 64 * 1024;

/** The error a staged entry carries until its unit of work gives it an outcome. */
export const BEING_APPLIED = 'Interrupted while being applied (the process stopped); replay it';

/** What an entry keeps of any message. */
export interface RawMessage {
  identity: string;
  messageId: string | null;
  from: { address: string };
  subject: string;
  raw: Buffer;
}

/** The columns of an intake entry that say what the message was (no sender: null). */
export const entryFields = (m: RawMessage, source: string) => ({
  identity: m.identity,
  message_id: m.messageId,
  source,
  sender: m.from.address || null,
  subject: m.subject.slice(0, 1000),
  raw: m.raw,
});

/** An entry written ahead of the unit of work; `used` once an attempt of it gave the entry its outcome. */
export interface StagedEntry {
  id: number;
  used: boolean;
}

/**
 * `work` given the message's entry written ahead when its raw message is large (and no unit of
 * work is open yet); otherwise none, and the unit of work logs the message itself. The entry is
 * deleted after `work` when no attempt of it used it, or when `work` failed.
 */
export async function withStagedEntry<T>(
  conn: Conn,
  m: RawMessage,
  source: string,
  work: (entry: StagedEntry | undefined) => Promise<T>,
): Promise<T> {
  if (m.raw.length < RAW_APART_FROM || inUnitOfWork(conn)) return await work(undefined);
  const rows = await writeApart(
    conn,
    (db) =>
      db
        .insert(mailIntake)
        .values({
          ...entryFields(m, source),
          verdict: 'failed',
          error: BEING_APPLIED,
          created_at: nowIso(conn),
        })
        .returning({ id: mailIntake.id }),
    'stageIntakeEntry',
  );
  const entry: StagedEntry = { id: Number(rows[0].id), used: false };
  // The store failing now too: the entry stays as a failed one that says so (replayable); the write's own outcome is the one to tell.
  const drop = () => dropEntry(conn, entry.id).catch(() => undefined);
  let result: T;
  try {
    result = await work(entry);
  } catch (e) {
    await drop();
    throw e;
  }
  if (!entry.used) await drop();
  return result;
}

/** Deletes a staged entry still waiting for its outcome. */
async function dropEntry(conn: Conn, id: number): Promise<void> {
  await transaction(
    conn,
    (tx) =>
      tx
        .delete(mailIntake)
        .where(and(eq(mailIntake.id, id), eq(mailIntake.verdict, 'failed'), eq(mailIntake.error, BEING_APPLIED))),
    { op: 'dropIntakeEntry' },
  );
}

/**
 * Inside the unit of work: the staged entry given its outcome (the fields an entry is logged
 * with, its time now); the updated row, or undefined when the entry is gone (then the caller
 * writes a new one).
 */
export async function settleEntry(
  tx: Conn,
  entry: StagedEntry,
  outcome: {
    verdict: (typeof mailIntake.$inferInsert)['verdict'];
    rule: string | null;
    ticket_id: number | null;
    transaction_id: number | null;
    error: string | null;
  },
): Promise<typeof mailIntake.$inferSelect | undefined> {
  const row = await first(
    tx
      .update(mailIntake)
      .set({ ...outcome, created_at: nowIso(tx) })
      .where(and(eq(mailIntake.id, entry.id), eq(mailIntake.verdict, 'failed'), eq(mailIntake.error, BEING_APPLIED)))
      .returning(),
  );
  if (row) entry.used = true;
  return row;
}
