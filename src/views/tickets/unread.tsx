// SPEC D6 unread marks (docs/decisions/054): what the list and the ticket page show of them.

/** A list row's mark: a dot, said as "New activity" to screen readers (the subject is bold too). */
export function UnreadMark() {
  return (
    <span class="unread-dot" title="New activity">
      <span class="visually-hidden">New activity</span>
    </span>
  );
}

/** A history entry written since the reader last opened the ticket. */
export function NewMark() {
  return <span class="txn-new">New</span>;
}

/** Whether a history entry is new to its reader: after what they had seen, and not their own. */
export const isNewEntry = (
  t: { id: number; creator_id: number | null },
  p: { newAfter?: number | null; actorId: number },
): boolean =>
  // Entries by nobody (what the scrips did after a change, e.g. new → open) follow their cause: not marked on their own.
  p.newAfter != null && t.id > p.newAfter && t.creator_id !== null && t.creator_id !== p.actorId;
