import { useContext } from 'hono/jsx';
import type { SlaPolicyName } from '../../domain/lookups.js';
import type { SlaClockJson, SlaJson } from '../../domain/time/slaJson.js';
import type { HtmlEscapedString } from 'hono/utils/html';
import { exactTime, h, Now, TimeZone, When, when } from '../format.js';

// SPEC D2 on screen (decision 070): the ticket page's clocks (due, met, breached, paused) and the
// lists' badge beside the status ("due in 2 h", amber inside the warning window, red when
// breached). Pure functions of the ticket's `sla` and `next_due_at`, the policies' names and
// warning windows (lookups), and the render's now.

export const CLOCK_LABEL = {
  first_response: 'First response',
  next_response: 'Next response',
  resolution: 'Resolution',
} as const;
const MINUTE = 60_000;

/** "40 min", "2 h", "3 days": a span in words, rounded down (at least a minute). */
export function spanWords(ms: number): string {
  const min = Math.max(1, Math.floor(ms / MINUTE));
  if (min < 60) return `${min} min`;
  const h = Math.floor(min / 60);
  if (h < 48) return `${h} h`;
  return `${Math.floor(h / 24)} days`;
}

type Tone = 'ok' | 'soon' | 'breached';

/** How a due time stands at `now`: words, and ok / soon (inside the warning window) / breached. */
export function dueWords(dueAt: string, now: number, warnMinutes: number): { text: string; tone: Tone } {
  const left = Date.parse(dueAt) - now;
  if (left <= 0) return { text: left > -MINUTE ? 'due now' : `overdue ${spanWords(-left)}`, tone: 'breached' };
  return { text: `due in ${spanWords(left)}`, tone: left <= warnMinutes * MINUTE ? 'soon' : 'ok' };
}

const useNow = () => useContext(Now) || 0;

/** The list's badge beside the status: the ticket's next due time (nothing without one). */
export function SlaBadge({
  t,
  policies,
}: {
  t: { sla: SlaJson | null; next_due_at: string | null };
  policies: readonly SlaPolicyName[];
}) {
  return slaBadgeHtml(t, policies, useContext(TimeZone), useNow());
}

/** `SlaBadge` with the reader's zone and the render's now given (a list's rows read them once; decision 086). */
export function slaBadgeHtml(
  t: { sla: SlaJson | null; next_due_at: string | null },
  policies: readonly SlaPolicyName[],
  zone: string,
  now: number,
): HtmlEscapedString | null {
  if (!t.sla || !t.next_due_at) return null;
  const warn = policies.find((p) => p.id === t.sla?.policy_id)?.warn_before_minutes ?? 0;
  const { text, tone } = dueWords(t.next_due_at, now, warn);
  const sla = t.sla;
  const clock = CLOCKS.find((k) => sla[k]?.due_at === t.next_due_at && sla[k]?.met_at === null);
  const what = clock ? CLOCK_LABEL[clock] : 'Due';
  return h`<span class="sla-badge sla-${tone}" title="${what} due ${exactTime(t.next_due_at, zone)}">${tone === 'breached' ? BREACHED : ''}${text}</span>`;
}
const CLOCKS = Object.keys(CLOCK_LABEL) as (keyof typeof CLOCK_LABEL)[];
const BREACHED = h`<span aria-hidden="true">⚠ </span>`;

function ClockLine({
  name,
  c,
  sla,
  warn,
}: {
  name: keyof typeof CLOCK_LABEL;
  c: SlaClockJson;
  sla: SlaJson;
  warn: number;
}) {
  const now = useNow();
  const zone = useContext(TimeZone);
  const paused = name === 'resolution' && sla.paused;
  const parts: unknown[] = [];
  if (c.met_at) {
    parts.push(
      <span class="sla-met">
        Met <When iso={c.met_at} />
      </span>,
    );
  } else if (paused) {
    parts.push(<span class="sla-paused">Paused while waiting</span>);
  } else if (c.due_at) {
    const { text, tone } = dueWords(c.due_at, now, warn);
    parts.push(
      <span class={`sla-badge sla-${tone}`}>{text[0].toUpperCase() + text.slice(1)}</span>,
      ' · ',
      <time class="sla-at" datetime={c.due_at} title={exactTime(c.due_at, zone)}>
        {when(c.due_at, zone)}
      </time>,
    );
  } else {
    parts.push(<span class="muted">Stopped while the ticket is closed</span>);
  }
  // A running clock past its due time already says so ("overdue 20 min"); otherwise the time it missed.
  const overdueShown = !c.met_at && !paused && c.due_at !== null && c.due_at === c.breached_at;
  if (c.breached_at && !overdueShown)
    parts.push(
      <span class="sla-missed">
        {' '}
        · missed{' '}
        <time datetime={c.breached_at} title={exactTime(c.breached_at, zone)}>
          {when(c.breached_at, zone)}
        </time>
      </span>,
    );
  return (
    <>
      <dt>{CLOCK_LABEL[name]}</dt>
      <dd>{parts}</dd>
    </>
  );
}

/** The ticket page's clocks: each clock's due, met or paused state, and the due time it missed. */
export function SlaClocks({ sla, policies }: { sla: SlaJson | null; policies: readonly SlaPolicyName[] }) {
  if (!sla) return null;
  const policy = policies.find((p) => p.id === sla.policy_id);
  const warn = policy?.warn_before_minutes ?? 0;
  const clocks = (Object.keys(CLOCK_LABEL) as (keyof typeof CLOCK_LABEL)[]).filter((k) => sla[k] !== null);
  return (
    <section class="sla-clocks" aria-labelledby="sla-title">
      <h2 id="sla-title">Service level{policy ? <span class="muted"> · {policy.name}</span> : null}</h2>
      <dl>
        {clocks.map((k) => (
          <ClockLine name={k} c={sla[k] as SlaClockJson} sla={sla} warn={warn} />
        ))}
      </dl>
    </section>
  );
}
