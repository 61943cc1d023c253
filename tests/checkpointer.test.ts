import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { writerHandle } from '../src/db/sqlite/client.js';
import { type CheckpointResult, startCheckpointer } from '../src/db/sqlite/checkpointer.js';
import { closeDb, openDb, type Db, sqliteOf } from '../src/db/store.js';

// The write-ahead log is copied back into the database by a worker thread (src/db/checkpointer.ts),
// not by the request thread. Without it the main connection only checkpoints past 10,000 pages,
// so the log would hold everything written below; with it the log keeps being restarted.

let dir: string;
let db: Db;
afterEach(async () => {
  await closeDb(db);
  fs.rmSync(dir, { recursive: true, force: true });
});

/**
 * Ten batches of ~600 KB, each committed by the request thread; `between` runs after each (with
 * the checkpointer: waits for its next turn to have copied the whole log back, however loaded
 * the machine). Returns the log file's size at the end.
 */
async function writeBatches(between: () => Promise<void> = async () => {}): Promise<number> {
  sqliteOf(db).exec('CREATE TABLE IF NOT EXISTS filler (id INTEGER PRIMARY KEY, data BLOB)');
  const insert = sqliteOf(db).prepare('INSERT INTO filler (data) VALUES (?)');
  const blob = Buffer.alloc(3000, 7);
  for (let batch = 0; batch < 10; batch++) {
    sqliteOf(db).transaction(() => {
      for (let i = 0; i < 200; i++) insert.run(blob);
    })();
    await between();
  }
  return fs.statSync(`${sqliteOf(db).name}-wal`).size;
}

/** Resolves on the checkpointer's next turn that found frames in the log and copied them all back. */
function checkpoints() {
  let waiting: (() => void) | null = null;
  return {
    heard(r: CheckpointResult) {
      if (r.log > 0 && r.checkpointed === r.log) waiting?.();
    },
    next: () =>
      new Promise<void>((resolve) => {
        waiting = resolve;
      }),
  };
}

describe('WAL checkpointer', () => {
  it('keeps the log short while the request thread writes ~8 MB', async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hxdesk-ckpt-'));
    db = openDb(path.join(dir, 'hxdesk.db'));
    const turns = checkpoints();
    const ckpt = startCheckpointer(writerHandle(db), { everyMs: 20, onCheckpoint: turns.heard })!;
    try {
      await ckpt.ready;
      expect(sqliteOf(db).pragma('wal_autocheckpoint', { simple: true })).toBe(10000);
      expect(await writeBatches(turns.next)).toBeLessThan(3 * 1024 * 1024);
    } finally {
      await ckpt.stop();
    }
  });

  it('(control) without it, the same writes leave the whole ~8 MB in the log', async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hxdesk-ckpt-'));
    db = openDb(path.join(dir, 'hxdesk.db'));
    sqliteOf(db).pragma('wal_autocheckpoint = 10000');
    expect(await writeBatches()).toBeGreaterThan(7 * 1024 * 1024);
  });
});
