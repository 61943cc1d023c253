import { and, inArray, isNull, lt } from 'drizzle-orm';
import { type Conn, changes, type Db, inUnitOfWork, transaction, writeApart } from '../db/port.js';
import { attachments } from '../db/tables.js';
import { nowIso, nowMs } from './clock.js';
import { conflict } from './errors.js';

// Files are stored before the unit of work that attaches them (SPEC D1, docs/decisions/061): a
// reply's 20 MiB go to the database in a short transaction of their own, with no ticket locked
// and nothing appended to the change log, as rows with `transaction_id` NULL ("staged"). The
// unit of work then locks the ticket, checks, writes the history entry and attaches the files by
// id — one small UPDATE under the lock instead of the bytes. A staged row is never read: every
// read of attachments goes through the transaction it belongs to (downloads join it, the outbox
// names ids a transaction's files had, and reads them only attached). A unit of work that fails
// deletes its staged files at once; what a crash leaves between the two is swept after an hour.

/** A file to store with a message (its history entry's). */
export interface NewAttachment {
  filename: string;
  content_type: string;
  content: Buffer;
  /**
   * `content` is this file's own copy that nothing reads once it is stored (a form's file, joined
   * from the chunks it came in): storing it may move its memory away and leave it empty. Files
   * without it (a mail's parts, which the raw mail shares) are copied where they must be.
   */
  movable?: boolean;
  /** Its row, once stored ahead of the unit of work that attaches it (staged). */
  staged_id?: number;
}

/** How old a staged file must be before the sweep deletes it: no unit of work runs that long. */
export const STAGED_MAX_AGE_MS = 3600_000;

/**
 * Stores `files` not yet stored, unattached, in one short unit of work of their own (joined
 * when `conn` is already one: then nothing is gained, but nothing differs either). Returns the
 * files with their `staged_id`s and an empty `content`, in the same order. The objects given are
 * not changed, but a `movable` file's bytes are handed over: its `content` may be left empty (its
 * memory moved to the thread that stores it).
 */
export async function stageFiles(conn: Conn, files: readonly NewAttachment[]): Promise<NewAttachment[]> {
  const todo = files.filter((f) => f.staged_id === undefined);
  if (todo.length === 0) return [...files];
  const ids = await insertStaged(conn, todo);
  let next = 0;
  return files.map((f) => (f.staged_id === undefined ? { ...f, content: STORED, staged_id: ids[next++] } : f));
}

/** A staged file's content: its bytes are in the database, and the buffer it came in may have been moved there. */
const STORED = Buffer.alloc(0);

/**
 * One INSERT of every file, committed on its own (inside a unit of work: part of it); ids come
 * from one sequence in the order of the rows, so sorted they are the files' order. Outside a unit
 * of work it is sent apart from the request thread where the store can (PostgreSQL: its bytes
 * are copied into the statement's message by a worker thread, decision 061).
 */
async function insertStaged(conn: Conn, files: readonly NewAttachment[]): Promise<number[]> {
  const now = nowIso(conn);
  const insert = (db: Db) =>
    db
      .insert(attachments)
      .values(
        files.map((f) => ({
          transaction_id: null,
          filename: f.filename,
          content_type: f.content_type,
          size: f.content.length,
          content: f.content,
          created_at: now,
        })),
      )
      .returning({ id: attachments.id });
  // PostgreSQL may move a movable file's memory to the thread that sends it rather than copy 10 MiB.
  const handOver = new Set(files.filter((f) => f.movable).map((f) => f.content));
  const rows = await writeApart(conn, insert, 'stageFiles', { handOver });
  return rows.map((r) => Number(r.id)).sort((a, b) => a - b);
}

/**
 * Inside the unit of work, after the history entry `transactionId`: its files attached (those a
 * caller inside a unit of work of its own did not stage are stored here first). Every staged id
 * must still be unattached; otherwise (swept after an hour, attached by another write) the unit
 * of work fails and rolls back.
 */
export async function attachFiles(
  tx: Conn,
  transactionId: number,
  files: readonly NewAttachment[],
  now: string,
): Promise<void> {
  if (files.length === 0) return;
  const staged = await stageFiles(tx, files);
  const ids = staged.map((f) => f.staged_id!);
  const res = await tx
    .update(attachments)
    .set({ transaction_id: transactionId, created_at: now })
    .where(and(inArray(attachments.id, ids), isNull(attachments.transaction_id)));
  if (changes(res) !== ids.length)
    throw conflict('The files of this message are no longer stored (kept for an hour at most): send them again');
}

/** Deletes those of `files` that are staged and still unattached (a unit of work that failed, or wrote none of them). */
export async function dropStaged(conn: Conn, files: readonly NewAttachment[]): Promise<void> {
  const ids = files.flatMap((f) => (f.staged_id === undefined ? [] : [f.staged_id]));
  if (ids.length === 0) return;
  await transaction(
    conn,
    (tx) => tx.delete(attachments).where(and(inArray(attachments.id, ids), isNull(attachments.transaction_id))),
    { op: 'dropStaged' },
  );
}

/**
 * `work` (which opens the unit of work) given `files` staged before it. When `work` fails, its
 * staged files are deleted at once and the failure goes on; `always`: also when it succeeds,
 * those it did not attach (the mail intake: a duplicate, a brake, a bounce writes none). Called
 * inside a unit of work, nothing is staged apart (the caller's unit of work stores the files when
 * it attaches them) and nothing is dropped here (its rollback does that).
 */
export async function withStagedFiles<T>(
  conn: Conn,
  files: readonly NewAttachment[] | undefined,
  work: (files: NewAttachment[]) => Promise<T>,
  opts: { always?: boolean } = {},
): Promise<T> {
  if (!files?.length || inUnitOfWork(conn)) return await work([...(files ?? [])]);
  const staged = await stageFiles(conn, files);
  const mine = staged.filter((_f, i) => files[i].staged_id === undefined);
  // The store failing now too: the sweep deletes them within the hour; the write's own outcome is the one to tell.
  const drop = () => dropStaged(conn, mine).catch(() => undefined);
  let result: T;
  try {
    result = await work(staged);
  } catch (e) {
    await drop();
    throw e;
  }
  if (opts.always) await drop();
  return result;
}

/**
 * Deletes staged files older than `STAGED_MAX_AGE_MS` by the store's clock (left by a crash
 * between staging and attaching), found through the partial index `attachments_unattached_idx`.
 * Idempotent: two processes sweeping at once delete each file once. Returns how many went.
 */
export async function sweepStagedFiles(conn: Conn): Promise<number> {
  const cutoff = new Date(nowMs(conn) - STAGED_MAX_AGE_MS).toISOString();
  const res = await transaction(
    conn,
    (tx) => tx.delete(attachments).where(and(isNull(attachments.transaction_id), lt(attachments.created_at, cutoff))),
    { op: 'sweepStagedFiles' },
  );
  return changes(res);
}
