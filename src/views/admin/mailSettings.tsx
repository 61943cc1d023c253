import type { MailSettingsJson } from '../../domain/mailSettings.js';
import { AdminForm, AdminFrame, Wide } from './common.js';

const ROLE_NAMES = { requester: 'Requester', cc: 'Cc', admin_cc: 'AdminCc' } as const;

/**
 * The admin page of our own addresses (SPEC D6): the list admins keep (one address a line), the
 * addresses that are ours from elsewhere (read-only, with where each comes from), and a warning
 * when tickets still name one of them as a person.
 */
export function MailSettingsPage({ settings: s, saved }: { settings: MailSettingsJson; saved?: boolean }) {
  const warning = s.tickets_with_our_addresses;
  return (
    <AdminFrame current="/mail-settings" title="Mail addresses">
      {saved && (
        <p class="notice" role="status">
          Saved.
        </p>
      )}
      <p class="muted">
        The addresses hxdesk receives mail at. They are never made requesters or Cc, and hxdesk never mails them: a
        customer who writes to two of them, or copies one, does not make a reply go back to your own inbox.
      </p>
      {warning.total > 0 && <OurAddressesOnTickets warning={warning} />}
      <div class="admin-grid">
        <div class="card">
          <h2>Addresses you add</h2>
          <AdminForm action="/mail-settings" method="PATCH" id="mail-settings">
            <label>
              Our addresses
              <textarea
                name="mail_addresses"
                rows={6}
                spellcheck={false}
                autocomplete="off"
                aria-describedby="mail-addresses-hint"
              >
                {s.mail_addresses.join('\n')}
              </textarea>
            </label>
            <small class="hint" id="mail-addresses-hint">
              One address a line, e.g. the public support address that forwards to hxdesk. At most 50.
            </small>
            <button type="submit" class="primary">
              Save addresses
            </button>
          </AdminForm>
        </div>
        <div class="card">
          <h2>Also ours</h2>
          {s.other_addresses.length === 0 ? (
            <p class="muted">None.</p>
          ) : (
            <ul class="our-addresses">
              {s.other_addresses.map((o) => (
                <li>
                  <code>{o.address}</code> <span class="muted">— {o.from.join(', ')}</span>
                </li>
              ))}
            </ul>
          )}
          <p class="hint">
            Set in the server's environment (<code>MAIL_FROM</code>, <code>MAIL_ADDRESSES</code>, the{' '}
            <code>IMAP_URL</code> user) or on a queue (its mail alias): change them there.
          </p>
        </div>
      </div>
    </AdminFrame>
  );
}

function OurAddressesOnTickets({ warning }: { warning: MailSettingsJson['tickets_with_our_addresses'] }) {
  const n = warning.total;
  return (
    <section class="our-address-warning" aria-labelledby="our-address-warning-title">
      <h2 id="our-address-warning-title">
        {n === 1 ? '1 ticket names' : `${n} tickets name`} one of our addresses as a person
      </h2>
      <p>
        hxdesk never mails these addresses, so nothing loops; but remove them from the ticket (People) so that its Cc
        list says who really gets the replies.
        {n > warning.tickets.length ? ` The first ${warning.tickets.length} are listed.` : ''}
      </p>
      <Wide label="Tickets naming our addresses">
        <table class="plain">
          <thead>
            <tr>
              <th>Ticket</th>
              <th>Subject</th>
              <th>Address</th>
              <th>As</th>
            </tr>
          </thead>
          <tbody>
            {warning.tickets.map((t) => (
              <tr>
                <td>
                  <a href={`/tickets/${t.ticket_id}`}>#{t.ticket_id}</a>
                </td>
                <td>{t.subject}</td>
                <td>{t.address}</td>
                <td>{ROLE_NAMES[t.role]}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </Wide>
    </section>
  );
}
