import type { ListedTicket } from '../../domain/tickets/requesters.js';
import { statusText } from './statusColors.js';
import type { SlaPolicyName } from '../../domain/lookups.js';
import { When } from '../format.js';
import { SlaBadge } from './sla.js';
import { SnoozeBadge } from './snooze.js';

// SPEC D6 "Lists that show who wrote in" and "small screens" (decision 055): the subject cell of a
// list row also names the requester and a priority that is not 0; on a narrow screen
// (static/app.css, "D6 lists") the row is this cell alone, in two lines: subject and requester,
// then status, the SLA badge (SPEC D2) and time — whichever columns the list shows.

/** The requester as a list names them: their name, else their address. */
export const requesterLabel = (t: Pick<ListedTicket, 'requester'>) => t.requester?.name || t.requester?.email || '';

/** The subject cell's content: the link, a priority badge, the requester; a second line for narrow screens. */
export function SubjectCell({ t, policies = [] }: { t: ListedTicket; policies?: readonly SlaPolicyName[] }) {
  const who = requesterLabel(t);
  return (
    <>
      <span class="subject-line">
        <a href={`/tickets/${t.id}`} class="subject-link">
          {t.subject}
        </a>
        {t.priority !== 0 && (
          <span class="priority-badge" title={`Priority ${t.priority}`}>
            <span class="visually-hidden">Priority </span>P{t.priority}
          </span>
        )}
        {(t.tags?.length ?? 0) > 0 && (
          <span class="list-tags">
            <span class="visually-hidden">tags: </span>
            {t.tags!.map((tag) => (
              <span class="list-tag">{tag}</span>
            ))}
          </span>
        )}
        {who && (
          <span class="row-requester" title={t.requester?.email || undefined}>
            <span class="visually-hidden">from </span>
            {who}
          </span>
        )}
      </span>
      <span class="row-second">
        <span class={`row-status status-${t.status}`}>{statusText(t.status)}</span>
        <SnoozeBadge t={t} /> <SlaBadge t={t} policies={policies} /> <When iso={t.updated_at} />
      </span>
    </>
  );
}
