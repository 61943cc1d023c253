import type { CustomerContext } from '../../domain/tickets/customer.js';
import { statusText } from './statusColors.js';
import { When } from '../format.js';

// SPEC D6 "Who is this customer" (decision 055): the requester's other tickets and their
// organization, beside the ticket (staff only; the route reads it for them alone).

export function CustomerPanel({ c }: { c: CustomerContext }) {
  const who = c.requester.name || c.requester.email;
  return (
    <section id="customer" class="customer" aria-labelledby="customer-title">
      <h2 id="customer-title">Customer</h2>
      <p class="customer-who">
        <span>{who}</span>
        {c.requester.name && <span class="muted small">{c.requester.email}</span>}
      </p>
      {c.organization && (
        <p class="customer-org">
          <a
            href={`/tickets?requester_domain=${encodeURIComponent(c.organization.domain)}`}
            title={`The tickets of everyone at ${c.organization.domain}`}
          >
            {c.organization.domain} · {c.organization.people.toLocaleString('en')}
            {c.organization.more ? '+' : ''} people
          </a>
        </p>
      )}
      <h3>Other tickets</h3>
      {c.others.length === 0 ? (
        <p class="muted small">None</p>
      ) : (
        <ul class="customer-tickets">
          {c.others.map((t) => (
            <li data-id={String(t.id)}>
              <a href={`/tickets/${t.id}`}>
                #{t.id} {t.subject}
              </a>
              <span class="customer-ticket-meta">
                <span class={`status status-${t.status}`}>{statusText(t.status)}</span> <When iso={t.updated_at} />
              </span>
            </li>
          ))}
        </ul>
      )}
      {c.total > 1 && (
        <a class="customer-all" href={`/tickets?requester_id=${c.requester.id}`}>
          All {c.total} tickets
        </a>
      )}
    </section>
  );
}
