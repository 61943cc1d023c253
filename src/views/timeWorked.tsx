import type { Person } from '../domain/lookups.js';
import type { TimeEntryListed, TimeList } from '../domain/timeWorked/week.js';
import { qs } from './format.js';
import { minutesText, weekdayText } from './minutes.js';

// SPEC D4 "My week" (GET /time as a page, decision 081): a person's entries by day with the
// tickets linked, each day's total and the period's, links to the week before and after; an
// administrator picks whose time it shows.

export interface WeekPageProps {
  list: TimeList;
  /** Whose time it is (their name), and whether it is the reader's own. */
  whose: string;
  own: boolean;
  /** Administrators: the staff to pick from. */
  staff?: Person[];
  /** The days of the period (a week: each; longer: those with entries), its last day, and the periods before and after. */
  days: string[];
  last: string;
  before: { from: string; to: string };
  after: { from: string; to: string };
  /** The period is a week (the links say "week"). */
  week: boolean;
}

const link = (list: TimeList, from: string, to: string, own: boolean) =>
  `/time${qs({ from, to, user_id: own ? undefined : list.user_id })}`;

function DayRows({ day, entries }: { day: string; entries: TimeEntryListed[] }) {
  const total = entries.reduce((n, e) => n + e.minutes, 0);
  if (entries.length === 0)
    return (
      <tr class="time-day-empty">
        <th scope="row">{weekdayText(day)}</th>
        <td colspan={2} class="muted">
          Nothing entered
        </td>
        <td class="num">{minutesText(0)}</td>
      </tr>
    );
  return (
    <>
      {entries.map((e, i) => (
        <tr>
          {i === 0 && (
            <th scope="rowgroup" rowspan={entries.length + 1}>
              {weekdayText(day)}
            </th>
          )}
          <td>
            <a href={`/tickets/${e.ticket_id}`}>
              #{e.ticket_id} {e.ticket_subject}
            </a>
          </td>
          <td>{e.note}</td>
          <td class="num">{minutesText(e.minutes)}</td>
        </tr>
      ))}
      <tr class="time-day-total">
        <td colspan={2}>Total for {weekdayText(day)}</td>
        <td class="num">{minutesText(total)}</td>
      </tr>
    </>
  );
}

export function WeekPage({ list, whose, own, staff, days: shown, last, before, after, week }: WeekPageProps) {
  const byDay = new Map<string, TimeEntryListed[]>();
  for (const e of list.entries) byDay.set(e.worked_on, [...(byDay.get(e.worked_on) ?? []), e]);
  const period = `${weekdayText(list.from)} – ${weekdayText(last)} ${last.slice(0, 4)}`;
  return (
    <section class="time-week">
      <header class="page-head">
        <h1>{own ? 'My week' : `Time worked by ${whose}`}</h1>
      </header>
      <nav class="time-week-nav" aria-label="Weeks">
        <a href={link(list, before.from, before.to, own)} rel="prev">
          ← Previous {week ? 'week' : 'period'}
        </a>
        <a href={own ? '/time' : `/time${qs({ user_id: list.user_id })}`}>This week</a>
        <a href={link(list, after.from, after.to, own)} rel="next">
          Next {week ? 'week' : 'period'} →
        </a>
      </nav>
      {staff && (
        <form method="get" action="/time" class="time-who">
          <label for="time-user">Whose time</label>
          <select id="time-user" name="user_id">
            {staff.map((u) => (
              <option value={String(u.id)} selected={u.id === list.user_id}>
                {u.name || u.email}
              </option>
            ))}
          </select>
          <input type="hidden" name="from" value={list.from} />
          <input type="hidden" name="to" value={list.to} />
          <button type="submit">Show</button>
        </form>
      )}
      <div class="table-wrap">
        <table class="plain time-table">
          <caption>Time worked, {period}</caption>
          <thead>
            <tr>
              <th scope="col">Day</th>
              <th scope="col">Ticket</th>
              <th scope="col">Note</th>
              <th scope="col" class="num">
                Time
              </th>
            </tr>
          </thead>
          <tbody>
            {shown.length === 0 ? (
              <tr>
                <td colspan={4} class="muted">
                  Nothing entered in this period.
                </td>
              </tr>
            ) : (
              shown.map((d) => <DayRows day={d} entries={byDay.get(d) ?? []} />)
            )}
          </tbody>
          <tfoot>
            <tr>
              <th scope="row" colspan={3}>
                Total
              </th>
              <td class="num" id="time-total">
                {minutesText(list.total_minutes)}
              </td>
            </tr>
          </tfoot>
        </table>
      </div>
    </section>
  );
}
