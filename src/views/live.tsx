import type { Viewer } from '../events/hub.js';

/**
 * Who else is on a ticket page (SPEC C5). The page renders it empty inside its `.presence-slot`
 * (the status region a screen reader follows); each `event: presence` of the page's stream is
 * this component again, which replaces it whole (`sse-swap`, outerHTML) and so listens on.
 */
export function Presence({ viewers }: { viewers: Viewer[] }) {
  const typing = viewers.filter((v) => v.typing);
  return (
    <div id="presence" class="presence" sse-swap="presence" hx-swap="outerHTML">
      {viewers.length > 0 && (
        <>
          <span class="presence-label">Also here:</span>{' '}
          {viewers.map((v, i) => (
            <>
              {i > 0 && ', '}
              <span class={v.typing ? 'presence-who typing' : 'presence-who'} data-user-id={String(v.id)}>{v.name}</span>
            </>
          ))}
          {typing.length > 0 && (
            <strong class="presence-typing"> — {typing.map((v) => v.name).join(', ')} {typing.length === 1 ? 'is' : 'are'} typing a reply…</strong>
          )}
        </>
      )}
    </div>
  );
}
