import { drizzle } from 'drizzle-orm/better-sqlite3';
import { SearchTooBroad } from '../storageErrors.js';
import type { TicketListSpec } from '../ticketListSpec.js';
import * as schema from './schema.js';
import { connect } from './connection.js';
import type { Db } from './handle.js';
import { listTickets } from './ticketList.js';

// A reader thread (./readers.ts): runs ticket lists and searches on its own read-only
// connection to the file. WAL lets it read beside the writer; it sees what is committed.

let open: { file: string; db: Db } | undefined;

function dbFor(file: string): Db {
  if (open?.file !== file) {
    open?.db.$client.close();
    open = { file, db: drizzle(connect(file, true), { schema }) as Db };
  }
  return open.db;
}

export type ListAnswer = { ok: ReturnType<typeof listTickets> } | { tooBroad: true };

export function list(task: { file: string; spec: TicketListSpec }): ListAnswer {
  try {
    return { ok: listTickets(dbFor(task.file), task.spec) };
  } catch (e) {
    if (e instanceof SearchTooBroad) return { tooBroad: true };
    throw e;
  }
}
