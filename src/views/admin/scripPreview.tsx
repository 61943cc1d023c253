import type { Lookups } from '../../domain/lookups.js';
import type { ScripPreview } from '../../domain/time/idlePreview.js';
import { queueName, When } from '../format.js';
import { Wide } from './common.js';

/**
 * SPEC D2: the tickets an on_idle scrip would fire on now (decision 072), on the scrip's page and
 * at /scrips/:id/preview.
 */
export function ScripPreviewCard({ preview: p, lookups: l }: { preview: ScripPreview; lookups: Lookups }) {
  const what = p.enabled ? 'fires on next' : 'would fire on if it were enabled now';
  return (
    <section class="card" id="scrip-preview" aria-labelledby="scrip-preview-title">
      <h2 id="scrip-preview-title">Preview</h2>
      <p class="muted">
        {p.count === 0
          ? `No ticket is idle long enough: this scrip ${p.enabled ? 'has nothing to fire on now' : 'would fire on none if it were enabled now'}.`
          : `${p.count} ${p.count === 1 ? 'ticket' : 'tickets'} this scrip ${what}${p.count > p.tickets.length ? ` (the ${p.tickets.length} idle longest are listed)` : ''}.`}
      </p>
      {p.tickets.length > 0 && (
        <Wide label="Tickets the scrip would fire on">
          <table class="plain">
            <thead>
              <tr>
                <th>Ticket</th>
                <th>Status</th>
                <th>Queue</th>
                <th>Idle since</th>
              </tr>
            </thead>
            <tbody>
              {p.tickets.map((t) => (
                <tr>
                  <td>
                    <a href={`/tickets/${t.id}`}>
                      #{t.id} {t.subject}
                    </a>
                  </td>
                  <td>{t.status}</td>
                  <td>{queueName(l, t.queue_id)}</td>
                  <td>
                    <When iso={t.idle_since} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </Wide>
      )}
    </section>
  );
}
