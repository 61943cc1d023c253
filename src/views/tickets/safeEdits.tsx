import type { TicketPageProps } from './pageProps.js';

// SPEC D6 "Safe edits" (decision 052): the subject is edited through an explicit control; Take
// from a colleague asks first; a deleted ticket says so at the top, with Restore.

/**
 * The subject as a heading with an "Edit subject" control. The control is a link to
 * `?edit=subject` (the page with the form open: works without JavaScript); static/safe-edits.js
 * opens the form in place instead. Neither link is boosted: htmx would load the page besides, and
 * its answer replaced the input under what was being typed. In the form Enter saves and Esc (or
 * Cancel) puts the subject back as it was; nothing is sent until Save.
 */
export function SubjectEdit({ p }: { p: TicketPageProps }) {
  const t = p.ticket;
  const editing = p.editSubject === true;
  return (
    <>
      <span id="subject-text" class="subject-text" hidden={editing}>
        {t.subject}
      </span>
      <form
        id="subject-form"
        class="subject-form"
        method="post"
        action={`/tickets/${t.id}`}
        hx-patch={`/tickets/${t.id}`}
        hx-target="#properties"
        hx-swap="outerHTML"
        data-error-target="#err-subject"
        data-subject-form
        hidden={!editing}
      >
        <input type="hidden" name="_method" value="PATCH" />
        <label class="visually-hidden" for="prop-subject">
          Subject
        </label>
        <input
          id="prop-subject"
          name="subject"
          value={t.subject}
          data-original={t.subject}
          required
          maxlength={500}
          autofocus={editing}
          aria-describedby="subject-keys"
        />
        <span class="subject-actions">
          <button type="submit" class="primary">
            Save
          </button>
          <a href={`/tickets/${t.id}`} class="button" role="button" hx-boost="false" data-subject-cancel>
            Cancel
          </a>
        </span>
        <small id="subject-keys" class="hint">
          Enter saves, Esc cancels.
        </small>
        <div class="field-error" id="err-subject" role="alert"></div>
      </form>
    </>
  );
}

/** The "Edit subject" control, beside the heading (hidden while the form is open). */
export function SubjectEditButton({ p }: { p: TicketPageProps }) {
  return (
    <a
      href={`/tickets/${p.ticket.id}?edit=subject`}
      class="button subject-edit"
      role="button"
      hx-boost="false"
      data-subject-edit
      aria-controls="subject-form"
      aria-expanded={p.editSubject ? 'true' : 'false'}
      hidden={p.editSubject === true}
    >
      Edit subject
    </a>
  );
}

/**
 * "Take from Ann?" (a Take of a ticket another agent owns). With htmx it is the answer shown where
 * the Take (or the owner choice) says its errors, its button a PATCH of its own; without
 * JavaScript a page with a form. Either sends `confirm_owner_id`: if the owner changes meanwhile,
 * the server asks again about the new one.
 */
export function TakeFromQuestion({
  ticketId,
  actorId,
  owner,
  standalone,
}: {
  ticketId: number;
  actorId: number;
  owner: { id: number; name: string };
  standalone?: boolean;
}) {
  const question = (
    <p id={`take-from-${ticketId}`}>
      {!standalone && <strong>Take from {owner.name}? </strong>}
      Ticket #{ticketId} is theirs now; taking it makes it yours.
    </p>
  );
  if (!standalone)
    return (
      <div class="take-confirm">
        {question}
        <button
          type="button"
          class="primary"
          autofocus
          aria-describedby={`take-from-${ticketId}`}
          hx-patch={`/tickets/${ticketId}`}
          hx-vals={JSON.stringify({ owner_id: String(actorId), confirm_owner_id: String(owner.id) })}
          hx-target="#properties"
          hx-swap="outerHTML"
        >
          Take from {owner.name}
        </button>{' '}
        <button type="button" data-take-cancel>
          Cancel
        </button>
      </div>
    );
  return (
    <section class="narrow take-confirm">
      <h1>Take from {owner.name}?</h1>
      <form method="post" action={`/tickets/${ticketId}`}>
        <input type="hidden" name="_method" value="PATCH" />
        <input type="hidden" name="owner_id" value={String(actorId)} />
        <input type="hidden" name="confirm_owner_id" value={String(owner.id)} />
        {question}
        <p class="confirm-actions">
          <button type="submit" class="primary" autofocus>
            Take from {owner.name}
          </button>
          <a href={`/tickets/${ticketId}`}>Cancel</a>
        </p>
      </form>
    </section>
  );
}

/** At the top of a deleted ticket: it says so, and Restore sets the status it had before (or open). */
export function DeletedBanner({ p }: { p: TicketPageProps }) {
  const t = p.ticket;
  if (t.status !== 'deleted') return null;
  const back = p.restoreStatus ?? 'open';
  return (
    <div class="deleted-banner" role="status">
      <p>
        <strong>This ticket is deleted.</strong>{' '}
        {p.staff ? `Restore it to reply; it goes back to ${back}.` : 'It can no longer be answered.'}
      </p>
      {p.staff && (
        <form
          method="post"
          action={`/tickets/${t.id}`}
          hx-patch={`/tickets/${t.id}`}
          hx-target="#properties"
          hx-swap="outerHTML"
          data-error-target="#err-restore"
        >
          <input type="hidden" name="_method" value="PATCH" />
          <input type="hidden" name="status" value={back} />
          <button type="submit" class="primary">
            Restore
          </button>
          <div class="field-error" id="err-restore" role="alert"></div>
        </form>
      )}
    </div>
  );
}
