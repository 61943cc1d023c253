import { eq } from 'drizzle-orm';
import { type Db, first, transaction } from '../db/port.js';
import { imapState } from '../db/tables.js';
import { nowIso } from './clock.js';

// Where IMAP polling left off, per mailbox: its UIDVALIDITY and the last UID handled (SPEC B7).

export async function getImapState(db: Db, mailbox: string) {
  return await first(db.select().from(imapState).where(eq(imapState.mailbox, mailbox)));
}

export async function saveImapState(db: Db, mailbox: string, uidValidity: string, lastUid: number): Promise<void> {
  await transaction(db, (tx) =>
    tx
      .insert(imapState)
      .values({ mailbox, uid_validity: uidValidity, last_uid: lastUid, updated_at: nowIso(db) })
      .onConflictDoUpdate({
        target: imapState.mailbox,
        set: { uid_validity: uidValidity, last_uid: lastUid, updated_at: nowIso(db) },
      }),
  );
}
