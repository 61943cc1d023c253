import type { ScripResult } from '../../scrips/kinds.js';

// SPEC D6, "history that people read": what an entry's scrips did is one quiet line under it
// ("3 people notified", "1 scrip failed") that opens to the details; a failure stands out and
// opens them at once. Scrips that did nothing (no mail, no webhook, no failure) make no line.
// Staff only: the caller leaves it out for requesters.

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** The words of the quiet line, and whether something failed; null when there is nothing to say. */
export function scripSummary(results: ScripResult[]): { words: string[]; failed: string | null } | null {
  const failed = results.filter((r) => !r.ok).length;
  const mailed = results.filter((r) => r.ok && r.action !== 'notify_webhook').reduce((n, r) => n + r.notifications, 0);
  const hooks = results.filter((r) => r.ok && r.action === 'notify_webhook').reduce((n, r) => n + r.notifications, 0);
  const withheld = new Set(results.flatMap((r) => r.withheld?.recipients ?? [])).size;
  const words = [
    mailed > 0 && `${plural(mailed, 'person', 'people')} notified`,
    hooks > 0 && `${plural(hooks, 'webhook')} called`,
    withheld > 0 && `${plural(withheld, 'customer')} not mailed`,
  ].filter((w): w is string => typeof w === 'string');
  if (words.length === 0 && failed === 0) return null;
  return { words, failed: failed > 0 ? `${plural(failed, 'scrip')} failed` : null };
}

export function ScripLine({ results }: { results: ScripResult[] }) {
  const s = scripSummary(results);
  if (!s) return null;
  return (
    <details class={s.failed ? 'scrip-line has-failed' : 'scrip-line'} open={s.failed !== null}>
      <summary>
        {s.failed && <strong class="scrip-failed">{s.failed}</strong>}
        {s.failed && s.words.length > 0 && ' · '}
        {s.words.join(' · ')}
      </summary>
      <ul class="scrip-results" aria-label="Scrips">
        {results.map((r) => (
          <li class={r.ok ? 'ok' : 'failed'}>
            {r.ok ? '✓' : '✗ Failed:'} {r.key}{' '}
            <span class="muted">
              ({r.action}
              {r.notifications ? `, ${r.notifications} notification${r.notifications > 1 ? 's' : ''}` : ''})
            </span>
            {r.error && <span class="error"> {r.error}</span>}
            {r.withheld && (
              <span class="withheld">
                {' '}
                Not mailed to {r.withheld.recipients.join(', ')}: {r.withheld.reason}.
              </span>
            )}
          </li>
        ))}
      </ul>
    </details>
  );
}
