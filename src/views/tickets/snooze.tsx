import { useContext } from 'hono/jsx';
import { snoozePresets } from './snoozePresets.js';
import type { HtmlEscapedString } from 'hono/utils/html';
import { exactTime, formatter, h, Now, TimeZone } from '../format.js';

// SPEC D2 snooze on screens (decision 071): the ticket page's Snooze box (presets in the reader's
// zone, a date-time, wake now) and the badge lists and the page show beside the status.

interface Snoozable {
  id: number;
  status: string;
  snoozed_until: string | null;
  replied_while_snoozed: boolean;
}

/** "Snoozed" (until when: its title, and said to screen readers) and "Customer replied", beside a ticket's status. */
export function SnoozeBadge({ t }: { t: Snoozable }) {
  return snoozeBadgeHtml(t, useContext(TimeZone));
}

/** `SnoozeBadge` with the reader's zone given (a list's rows read it once; decision 086). */
export function snoozeBadgeHtml(t: Snoozable, zone: string): HtmlEscapedString | null {
  if (!t.snoozed_until) return null;
  const until = exactTime(t.snoozed_until, zone);
  return h`<span class="snooze-badge" title="Snoozed until ${until}">Snoozed<span class="visually-hidden"> until ${until}</span></span>${t.replied_while_snoozed ? REPLIED : ''}`;
}
const REPLIED = h`<span class="replied-badge">Customer replied</span>`;

/** The value of a datetime-local input for an instant, in a zone (`2026-11-27T09:00`). */
function localValue(iso: string, zone: string): string {
  const parts = Object.fromEntries(
    formatter(zone)
      .formatToParts(new Date(iso))
      .map((p) => [p.type, p.value]),
  );
  return `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}`;
}

/** The ticket page's Snooze box: a PATCH like every property (its answer is the properties panel). */
export function SnoozeBox({ t }: { t: Snoozable }) {
  const zone = useContext(TimeZone);
  const now = useContext(Now);
  if (t.status === 'deleted') return null;
  const form = {
    method: 'post' as const,
    action: `/tickets/${t.id}`,
    'hx-patch': `/tickets/${t.id}`,
    'hx-target': '#properties',
    'hx-swap': 'outerHTML',
    'data-error-target': '#err-snooze',
  };
  if (t.snoozed_until)
    return (
      <section class="snooze prop" aria-labelledby="snooze-title">
        <h2 id="snooze-title" class="label">
          Snoozed
        </h2>
        <p>
          Until <time datetime={t.snoozed_until}>{exactTime(t.snoozed_until, zone)}</time>
          {t.replied_while_snoozed && (
            <>
              {' '}
              <span class="replied-badge">Customer replied</span>
            </>
          )}
        </p>
        <form {...form}>
          <input type="hidden" name="_method" value="PATCH" />
          <input type="hidden" name="snoozed_until" value="" />
          <button type="submit">Wake now</button>
        </form>
        <div class="field-error" id="err-snooze" role="alert"></div>
      </section>
    );
  const presets = now ? snoozePresets(now, zone) : [];
  return (
    <section class="snooze prop" aria-labelledby="snooze-title">
      <h2 id="snooze-title" class="label">
        Snooze
      </h2>
      <form {...form}>
        <input type="hidden" name="_method" value="PATCH" />
        <div class="snooze-presets">
          {presets.map((s) => (
            <button type="submit" name="snoozed_until" value={s.at} title={exactTime(s.at, zone)}>
              {s.label}
            </button>
          ))}
        </div>
        <label for="snooze-at">Until</label>
        <input
          id="snooze-at"
          type="datetime-local"
          name="snoozed_until"
          min={now ? localValue(new Date(now).toISOString(), zone) : undefined}
        />
        <button type="submit">Snooze</button>
        <label class="check">
          <input type="hidden" name="unsnooze_on_reply" value="false" />
          <input type="checkbox" name="unsnooze_on_reply" value="true" checked /> Wake when the customer replies
        </label>
      </form>
      <div class="field-error" id="err-snooze" role="alert"></div>
    </section>
  );
}
