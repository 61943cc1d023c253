import type { DraftJson } from '../../domain/tickets/drafts.js';

// SPEC D6 drafts (docs/decisions/054): the reply box's text is saved on the server while it is
// written — a second after typing stops, and when the box loses the focus — and the page says
// "Draft saved" quietly. The saver sits outside the reply form (so that only the text and its
// kind are sent) and synchronizes on it (`hx-sync`): a save waits for a message being sent, and
// a send waits for a save under way, so a draft never comes back after its message was sent.

/**
 * The hidden element that saves the draft (PUT /tickets/:id/draft with the text and the
 * reply/note choice); its answer is the words of the status line.
 */
export function DraftSaver({ ticketId }: { ticketId: number }) {
  const url = `/tickets/${ticketId}/draft`;
  return (
    <div
      id="draft-saver"
      hidden
      hx-put={url}
      hx-trigger="input changed delay:1s from:#reply-body, blur changed from:#reply-body, change from:(#reply-form input[name=internal])"
      hx-include="#reply-body, #reply-form input[name=internal]"
      hx-encoding="application/x-www-form-urlencoded"
      hx-target="#draft-status"
      hx-swap="innerHTML"
      hx-sync="#reply-form:queue first"
      data-error-target="#reply-error"
    ></div>
  );
}

/** What the status line says of a draft. */
export function DraftWords({ draft }: { draft: Pick<DraftJson, 'kind'> | null }) {
  return <>{draft ? 'Draft saved' : ''}</>;
}

/** The quiet status line beside Send (role=status: read out politely, never moving the focus). */
export function DraftStatus({ draft, oob }: { draft: Pick<DraftJson, 'kind'> | null; oob?: boolean }) {
  return (
    <span
      id="draft-status"
      class="draft-status"
      role="status"
      aria-live="polite"
      hx-swap-oob={oob ? 'true' : undefined}
    >
      <DraftWords draft={draft} />
    </span>
  );
}
