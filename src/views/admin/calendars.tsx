import type { CalendarJson, Explanation } from '../../domain/time/calendars.js';
import type { Weekday } from '../../domain/time/businessTime.js';
import { exactTime, when } from '../format.js';
import { AdminForm, AdminFrame, Area, Check, Text, Wide } from './common.js';

// SPEC D2 calendars in the admin area (decision 068): the list, a calendar's form, and the
// explain view (when n business minutes from an instant end, and the stretches counted).

const DAYS: [Weekday, string][] = [
  ['mon', 'Monday'],
  ['tue', 'Tuesday'],
  ['wed', 'Wednesday'],
  ['thu', 'Thursday'],
  ['fri', 'Friday'],
  ['sat', 'Saturday'],
  ['sun', 'Sunday'],
];

/** A day's hours as the form shows them: "09:00-12:30, 13:30-17:00" (empty: closed). */
const dayText = (stretches: [string, string][] | undefined) =>
  (stretches ?? []).map(([a, b]) => `${a}-${b}`).join(', ');

/** The week in a line: "Mon–Fri 09:00-17:00; Sat 10:00-14:00". */
export function weekSummary(cal: CalendarJson): string {
  const parts: string[] = [];
  let i = 0;
  while (i < DAYS.length) {
    const text = dayText(cal.hours[DAYS[i][0]]);
    let j = i;
    while (j + 1 < DAYS.length && dayText(cal.hours[DAYS[j + 1][0]]) === text) j++;
    if (text) {
      const name = (k: number) => DAYS[k][1].slice(0, 3);
      parts.push(`${i === j ? name(i) : `${name(i)}–${name(j)}`} ${text}`);
    }
    i = j + 1;
  }
  return parts.join('; ') || 'Never open';
}

/** A new calendar's form starts from office hours, Monday to Friday. */
const NEW_WEEK: Record<Weekday, string> = {
  mon: '09:00-17:00',
  tue: '09:00-17:00',
  wed: '09:00-17:00',
  thu: '09:00-17:00',
  fri: '09:00-17:00',
  sat: '',
  sun: '',
};

/** The zones this Node knows, for the time-zone field's suggestions. */
const ZONES: string[] = (() => {
  try {
    return Intl.supportedValuesOf('timeZone');
  } catch {
    return [];
  }
})();

function CalendarFields({ id, action, cal }: { id: string; action: string; cal?: CalendarJson }) {
  return (
    <AdminForm action={action} method={cal ? 'PATCH' : 'POST'} id={id}>
      <Text name="name" label="Name" value={cal?.name} required />
      <label>
        Time zone
        <input
          name="time_zone"
          value={cal?.time_zone ?? ''}
          required
          list="time-zones"
          placeholder="Europe/Berlin"
          autocomplete="off"
        />
        <small class="hint">An IANA name: daylight-saving changes follow from it.</small>
      </label>
      <fieldset class="checks">
        <legend>Opening hours</legend>
        <small class="hint">Per day, stretches like 09:00-12:30, 13:30-17:00; empty is closed; 24:00 ends a day.</small>
        {DAYS.map(([d, label]) => (
          <Text
            name={`hours.${d}`}
            label={label}
            value={cal ? dayText(cal.hours[d]) : NEW_WEEK[d]}
            placeholder="closed"
          />
        ))}
      </fieldset>
      <Area
        name="holidays"
        label="Holidays"
        value={(cal?.holidays ?? []).join('\n')}
        rows={4}
        hint="One per line: 2026-12-24 for that day, --12-25 for every year."
      />
      <Check
        name="default"
        label="Default calendar (idle scrips count in it when no policy says otherwise)"
        checked={cal?.default}
      />
      <button type="submit" class="primary">
        {cal ? 'Save' : 'Create calendar'}
      </button>
    </AdminForm>
  );
}

const ZoneList = () => (
  <datalist id="time-zones">
    {ZONES.map((z) => (
      <option value={z} />
    ))}
  </datalist>
);

export function CalendarsPage({ calendars }: { calendars: CalendarJson[] }) {
  return (
    <AdminFrame current="/calendars" title="Calendars">
      <p class="muted">
        Business hours, holidays and a time zone: SLA policies count their targets in a calendar, idle scrips their
        business hours.
      </p>
      <div class="admin-grid">
        <Wide label="Calendars">
          <table class="plain">
            <thead>
              <tr>
                <th>Calendar</th>
                <th>Time zone</th>
                <th>Hours</th>
                <th>Holidays</th>
              </tr>
            </thead>
            <tbody>
              {calendars.map((cal) => (
                <tr>
                  <td>
                    <a href={`/calendars/${cal.id}`}>{cal.name}</a>
                    {cal.default && <span class="badge"> default</span>}
                  </td>
                  <td>{cal.time_zone}</td>
                  <td>{weekSummary(cal)}</td>
                  <td>{cal.holidays.length}</td>
                </tr>
              ))}
              {calendars.length === 0 && (
                <tr>
                  <td colspan={4}>No calendars yet: every clock counts around the clock.</td>
                </tr>
              )}
            </tbody>
          </table>
        </Wide>
        <div class="card">
          <h2>New calendar</h2>
          <CalendarFields id="new-calendar" action="/calendars" />
        </div>
      </div>
      <ZoneList />
    </AdminFrame>
  );
}

const minutesBetween = (a: string, b: string) => Math.round((Date.parse(b) - Date.parse(a)) / 60_000);
const duration = (min: number) =>
  min < 60 ? `${min} min` : `${Math.floor(min / 60)} h${min % 60 ? ` ${min % 60} min` : ''}`;

/** A due time explained: when, in the calendar's zone and in UTC, and each stretch counted. */
export function ExplainResult({ explanation: e }: { explanation: Explanation }) {
  const zone = e.time_zone;
  return (
    <div class="explanation">
      <p>
        {e.minutes} business minutes from <time datetime={e.start}>{exactTime(e.start, zone)}</time> end at{' '}
        <strong>
          <time datetime={e.due_at}>{exactTime(e.due_at, zone)}</time>
        </strong>{' '}
        ({exactTime(e.due_at, 'UTC')}).
      </p>
      {e.segments.length > 0 ? (
        <ol class="segments" aria-label="Business time counted">
          {e.segments.map((s) => (
            <li>
              <time datetime={s.start}>{exactTime(s.start, zone)}</time> –{' '}
              <time datetime={s.end}>{exactTime(s.end, zone)}</time> ({duration(minutesBetween(s.start, s.end))})
            </li>
          ))}
        </ol>
      ) : (
        <p class="muted">No business time counted: it is due at the start.</p>
      )}
    </div>
  );
}

export function CalendarPage({ calendar: cal, explanation }: { calendar: CalendarJson; explanation?: Explanation }) {
  return (
    <AdminFrame current="/calendars" title={`Calendar ${cal.name}`}>
      <div class="admin-grid">
        <div class="card">
          <CalendarFields id="edit-calendar" action={`/calendars/${cal.id}`} cal={cal} />
        </div>
        <div class="card">
          <h2>Explain a due time</h2>
          <form
            id="explain-form"
            method="get"
            action={`/calendars/${cal.id}/explain`}
            hx-get={`/calendars/${cal.id}/explain`}
            hx-target="#explain-result"
            data-error-target="#explain-error"
          >
            <Text
              name="start"
              type="datetime-local"
              label={`Start (in ${cal.time_zone}; empty: now)`}
              value={explanation ? when(explanation.start, cal.time_zone).replace(' ', 'T') : ''}
            />
            <label>
              Business minutes
              <input name="minutes" type="number" min="0" max="525600" required value={explanation?.minutes ?? 240} />
            </label>
            <button type="submit">Explain</button>
            <div class="field-error form-error" id="explain-error" role="alert"></div>
          </form>
          <div id="explain-result" aria-live="polite">
            {explanation && <ExplainResult explanation={explanation} />}
          </div>
          <AdminForm
            action={`/calendars/${cal.id}`}
            method="DELETE"
            id="delete-calendar"
            confirm={`Delete calendar ${cal.name}?`}
          >
            <button type="submit" class="danger">
              Delete calendar
            </button>
          </AdminForm>
        </div>
      </div>
      <ZoneList />
    </AdminFrame>
  );
}
