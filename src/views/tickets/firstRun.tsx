import type { Child } from 'hono/jsx';
import type { FirstRunState } from '../../domain/firstRun.js';

// SPEC D6 "First run" (decision 055): what to do first on an empty install, each step ticked when done.

function Step({ done, title, children }: { done: boolean; title: string; children?: Child }) {
  return (
    <li class={done ? 'done' : ''} data-done={String(done)}>
      <span class="step-mark" aria-hidden="true">
        {done ? '✓' : '○'}
      </span>
      <div>
        <strong>{title}</strong>
        <span class="visually-hidden">{done ? ' (done)' : ' (to do)'}</span>
        <div class="muted small">{children}</div>
      </div>
    </li>
  );
}

export function FirstRun({ s }: { s: FirstRunState }) {
  return (
    <section class="first-run" id="first-run" aria-labelledby="first-run-title">
      <h2 id="first-run-title">Getting started</h2>
      <ol>
        <Step done={s.mail} title="Give a queue its mail address">
          {s.mail ? (
            <>Mail to {s.address ?? 'your address'} becomes tickets.</>
          ) : s.admin ? (
            <>
              Set the address customers write to on a queue in <a href="/queues">Admin › Queues</a>.
            </>
          ) : (
            <>An administrator sets the address customers write to on a queue.</>
          )}
        </Step>
        <Step done={s.agents} title="Add your agents">
          {s.agents ? (
            <>Your team can sign in.</>
          ) : s.admin ? (
            <>
              Invite the people who answer tickets in <a href="/users">Admin › Users</a>.
            </>
          ) : (
            <>An administrator adds the people who answer tickets.</>
          )}
        </Step>
        <Step done={s.ticket} title="Send a test mail">
          {s.ticket ? (
            <>A ticket has arrived.</>
          ) : (
            <>
              {s.address ? (
                <>
                  Write to <strong>{s.address}</strong> from your own mail account; it shows up here as a ticket.
                </>
              ) : (
                <>Once a queue has its address, write to it from your own mail account.</>
              )}{' '}
              {s.imap
                ? 'hxdesk fetches it from the mailbox it polls (IMAP_URL).'
                : 'Your mail server hands it to hxdesk-mailgate, or set IMAP_URL to have hxdesk fetch it.'}{' '}
              Or <a href="/tickets/new">open a ticket by hand</a>.
            </>
          )}
        </Step>
      </ol>
    </section>
  );
}
