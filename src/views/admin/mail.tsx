import type { IntakeJson } from '../../domain/mailIntakeLog.js';
import type { OutboxJson } from '../../domain/outbox.js';
import type { Mailbox } from '../../scrips/outbox.js';
import { When } from '../format.js';
import { AdminForm, AdminFrame, Wide, ListPager } from './common.js';

export function OutboxPage({
  outbox,
  total,
  limit,
  offset,
  query,
}: {
  outbox: OutboxJson[];
  total: number;
  limit: number;
  offset: number;
  query: { status?: string; ticket_id?: number; limit?: number; offset?: number };
}) {
  const status = query.status;
  return (
    <AdminFrame current="/outbox" title="Outbox">
      <nav class="views" aria-label="Filter by state">
        {[
          ['', 'All'],
          ['queued', 'Queued'],
          ['sending', 'Sending'],
          ['sent', 'Sent'],
          ['failed', 'Failed'],
        ].map(([v, label]) => (
          <a href={v ? `/outbox?status=${v}` : '/outbox'} class={(status ?? '') === v ? 'current' : ''}>
            {label}
          </a>
        ))}
      </nav>
      <p class="muted">
        {total} notification{total === 1 ? '' : 's'}
      </p>
      <Wide label="Outbox messages">
        <table class="plain">
          <thead>
            <tr>
              <th>#</th>
              <th>Kind</th>
              <th>Recipient</th>
              <th>Subject</th>
              <th>Ticket</th>
              <th>State</th>
              <th>Audience</th>
              <th>Addressed to</th>
              <th>Attempts</th>
              <th>Last error or note</th>
              <th>Created</th>
              <th>
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {outbox.map((o) => (
              <tr>
                <td>
                  <a href={`/outbox/${o.id}`}>{o.id}</a>
                </td>
                <td>{o.kind}</td>
                <td>{o.recipient}</td>
                <td>{o.subject ?? '—'}</td>
                <td>{o.ticket_id ? <a href={`/tickets/${o.ticket_id}`}>#{o.ticket_id}</a> : '—'}</td>
                <td>{o.status}</td>
                <td>{o.audience ?? '—'}</td>
                <td>
                  <Addressed to={o.to} cc={o.cc} />
                </td>
                <td>{o.attempts}</td>
                <td class="error">{o.last_error ?? ''}</td>
                <td>
                  <When iso={o.created_at} />
                </td>
                <td>
                  {o.status === 'failed' || o.status === 'queued' ? (
                    <AdminForm action={`/outbox/${o.id}/retry`} id={`retry-${o.id}`}>
                      <button type="submit">Retry now</button>
                    </AdminForm>
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </Wide>
      <ListPager path="/outbox" query={query} total={total} limit={limit} offset={offset} />
    </AdminFrame>
  );
}

const mailboxText = (m: Mailbox) => (m.name ? `${m.name} <${m.address}>` : m.address);

/** The header To and Cc of a mail (the conversation it shows), beside the envelope recipient of this copy. */
function Addressed({ to, cc }: { to: Mailbox[]; cc: Mailbox[] }) {
  if (to.length === 0 && cc.length === 0) return <>—</>;
  return (
    <>
      {to.length ? <div>To: {to.map(mailboxText).join(', ')}</div> : null}
      {cc.length ? <div>Cc: {cc.map(mailboxText).join(', ')}</div> : null}
    </>
  );
}

export function IntakePage({
  intake,
  total,
  limit,
  offset,
  query,
}: {
  intake: IntakeJson[];
  total: number;
  limit: number;
  offset: number;
  query: { verdict?: string; limit?: number; offset?: number };
}) {
  return (
    <AdminFrame current="/mail/intake" title="Mail intake">
      <p class="muted">
        {total} message{total === 1 ? '' : 's'} received
      </p>
      <Wide label="Received messages">
        <table class="plain">
          <thead>
            <tr>
              <th>#</th>
              <th>Received</th>
              <th>From</th>
              <th>Subject</th>
              <th>Verdict</th>
              <th>Rule</th>
              <th>Ticket</th>
              <th>Source</th>
            </tr>
          </thead>
          <tbody>
            {intake.map((m) => (
              <tr>
                <td>
                  <a href={`/mail/intake/${m.id}`}>{m.id}</a>
                </td>
                <td>
                  <When iso={m.created_at} />
                </td>
                <td>{m.sender ?? '—'}</td>
                <td>{m.subject}</td>
                <td class={m.verdict === 'failed' || m.verdict === 'rejected' ? 'error' : ''}>{m.verdict}</td>
                <td>{m.error ?? m.rule}</td>
                <td>{m.ticket_id ? <a href={`/tickets/${m.ticket_id}`}>#{m.ticket_id}</a> : '—'}</td>
                <td>{m.source}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </Wide>
      <ListPager path="/mail/intake" query={query} total={total} limit={limit} offset={offset} />
    </AdminFrame>
  );
}

export function IntakeEntryPage({ entry: m }: { entry: IntakeJson & { raw: string } }) {
  return (
    <AdminFrame current="/mail/intake" title={`Message ${m.id}`}>
      <dl class="data">
        <dt>Received</dt>
        <dd>
          <When iso={m.created_at} /> via {m.source}
        </dd>
        <dt>From</dt>
        <dd>{m.sender ?? '—'}</dd>
        <dt>Subject</dt>
        <dd>{m.subject}</dd>
        <dt>Identity</dt>
        <dd>
          <code>{m.identity}</code>
        </dd>
        <dt>Verdict</dt>
        <dd>{m.verdict}</dd>
        <dt>Rule</dt>
        <dd>{m.rule ?? '—'}</dd>
        <dt>Taken as ours</dt>
        <dd>{m.ours.length ? m.ours.join(', ') : '—'}</dd>
        {m.error && (
          <>
            <dt>Error</dt>
            <dd class="error">{m.error}</dd>
          </>
        )}
        <dt>Ticket</dt>
        <dd>{m.ticket_id ? <a href={`/tickets/${m.ticket_id}`}>#{m.ticket_id}</a> : '—'}</dd>
      </dl>
      <AdminForm action={`/mail/intake/${m.id}/replay`} id="replay">
        <button type="submit">Replay this message</button>
      </AdminForm>
      <h2>Raw message ({m.size} bytes)</h2>
      <pre class="preview">{m.raw}</pre>
    </AdminFrame>
  );
}
