import type { Child } from 'hono/jsx';

// SPEC C5, docs/decisions/038: nobody answers the same mail blind. The reply box carries the id
// of the newest history entry its page showed (`seen_transaction_id`); a message sent after
// someone else wrote on the ticket is refused (409 `stale`), and the new entries are shown here,
// above the text, which stays, with "Send anyway" (the same form, `force=true`).

/** The marker: the newest entry the writer has been shown. Live updates of the history leave it alone. */
export function SeenMarker({ value, oob }: { value: number | undefined; oob?: boolean }) {
  if (value === undefined) return null; // a ticket has at least its Create entry, which everyone sees
  return (
    <input
      type="hidden"
      id="reply-seen"
      name="seen_transaction_id"
      value={String(value)}
      hx-swap-oob={oob ? 'true' : undefined}
    />
  );
}

/**
 * The warning above the reply text: the entries that came in (rendered by the history's own
 * entry view, passed as children), and "Send anyway". Empty (but present, as the target of
 * out-of-band swaps) when there is nothing to warn about.
 */
export function StaleWarning({
  count,
  files,
  oob,
  children,
}: {
  count: number;
  files?: number;
  oob?: boolean;
  children?: Child;
}) {
  const swap = oob ? 'true' : undefined;
  if (count === 0) return <div id="reply-stale" class="reply-stale" hx-swap-oob={swap}></div>;
  return (
    <section id="reply-stale" class="reply-stale has-stale" aria-labelledby="reply-stale-title" hx-swap-oob={swap}>
      <h3 id="reply-stale-title">New on this ticket since you opened it</h3>
      <p>
        Your message has not been sent: someone wrote on this ticket after you opened it. Read{' '}
        {count === 1 ? 'this entry' : `these ${count} entries`}, then send your message anyway, or change it first and
        press Send.
        {files
          ? ` The ${files === 1 ? 'file' : `${files} files`} you chose ${files === 1 ? 'was' : 'were'} not kept: choose ${files === 1 ? 'it' : 'them'} again.`
          : ''}
      </p>
      <ol class="history stale-entries" aria-label="New entries">
        {children}
      </ol>
      <div class="reply-actions">
        <button type="submit" name="force" value="true" data-send-anyway>
          Send anyway
        </button>
      </div>
    </section>
  );
}

/** What the reply box's error line says when the warning appears (htmx). */
export function StaleNote() {
  return <p class="stale-note">Not sent yet: new entries on this ticket are shown above your message.</p>;
}
