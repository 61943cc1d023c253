import { minutesText } from '../minutes.js';
import type { TicketPageProps } from './pageProps.js';

/** The route's limits (src/domain/timeWorked/entries.ts MINUTES_MAX, NOTE_MAX), for the browser's own checks. */
const MINUTES_MAX = 24 * 60;
const NOTE_MAX = 1000;

// SPEC D4 time worked on the ticket page (decision 081): the properties panel's "Time worked"
// with a small form to add an entry (minutes, date, note), and the reply box's minutes field with
// its timer (static/time-timer.js keeps it per ticket in localStorage, so it survives a reload).

/** "Time worked: 1 h 30 min" and the Add time form (a plain POST; htmx swaps the panel). */
export function TimeWorkedBox({ p }: { p: TicketPageProps }) {
  const id = p.ticket.id;
  const today = p.today;
  return (
    <section class="time-worked" aria-labelledby="time-worked-title">
      <p id="time-worked-title" class="prop">
        <span class="label">Time worked</span>{' '}
        <strong id="time-worked-total">{minutesText(p.ticket.time_worked_minutes)}</strong>
      </p>
      <details class="time-add">
        <summary>Add time</summary>
        <form
          method="post"
          action={`/tickets/${id}/time`}
          hx-post={`/tickets/${id}/time`}
          hx-target="#properties"
          hx-swap="outerHTML"
          data-error-target="#err-time"
          class="time-form"
        >
          <label for="time-minutes">Minutes</label>
          <input
            id="time-minutes"
            name="minutes"
            type="number"
            required
            min={String(-MINUTES_MAX)}
            max={String(MINUTES_MAX)}
            step="1"
            inputmode="numeric"
            aria-describedby="time-minutes-hint"
          />
          <small class="hint" id="time-minutes-hint">
            Negative minutes correct earlier time.
          </small>
          <label for="time-worked-on">Date</label>
          <input id="time-worked-on" name="worked_on" type="date" max={today} value={today} />
          <label for="time-note">Note</label>
          <input id="time-note" name="note" type="text" maxlength={NOTE_MAX} />
          <button type="submit">Add time</button>
          <div class="field-error" id="err-time" role="alert"></div>
        </form>
      </details>
    </section>
  );
}

/** The reply box's minutes worked, with a timer that fills them (staff). */
export function ReplyTime({ ticketId, minutes }: { ticketId: number; minutes?: number }) {
  return (
    <fieldset class="reply-time" data-time-timer={String(ticketId)}>
      <legend>Time worked</legend>
      <div class="reply-time-row">
        <label for="reply-time-minutes">Minutes</label>
        <input
          id="reply-time-minutes"
          name="time_minutes"
          type="number"
          min={String(-MINUTES_MAX)}
          max={String(MINUTES_MAX)}
          step="1"
          inputmode="numeric"
          class="reply-time-minutes"
          value={minutes === undefined ? undefined : String(minutes)}
        />
        <span class="timer-controls" hidden>
          <output class="timer-clock" aria-label="Timer" data-timer-clock>
            0:00
          </output>
          <button type="button" data-timer-start>
            Start timer
          </button>
          <button type="button" data-timer-reset>
            Reset timer
          </button>
        </span>
      </div>
      <span class="visually-hidden" role="status" data-timer-said></span>
    </fieldset>
  );
}
