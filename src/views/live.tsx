import type { Viewer } from '../events/hub.js';

/**
 * Who else is on a ticket page (SPEC C5). The page renders it empty inside its `.presence-slot`
 * (the status region a screen reader follows). The element itself stays: each `event: presence`
 * of the page's stream is `PresenceWho` again, swapped in as its content (`sse-swap`, innerHTML).
 * (Replacing the element whole would drop a message that came before htmx had processed the
 * new element: htmx's SSE extension listens per element.)
 */
export function Presence({ viewers }: { viewers: Viewer[] }) {
  return (
    <div id="presence" class="presence" sse-swap="presence" hx-swap="innerHTML">
      <PresenceWho viewers={viewers} />
    </div>
  );
}

/** The words inside `#presence`: who else is here, and who of them is typing a reply. */
export function PresenceWho({ viewers }: { viewers: Viewer[] }) {
  if (viewers.length === 0) return null;
  const typing = viewers.filter((v) => v.typing);
  return (
    <>
      <span class="presence-label">Also here:</span>{' '}
      {viewers.map((v, i) => (
        <>
          {i > 0 && ', '}
          <span class={v.typing ? 'presence-who typing' : 'presence-who'} data-user-id={String(v.id)}>
            {v.name}
          </span>
        </>
      ))}
      {typing.length > 0 && (
        <strong class="presence-typing">
          {' '}
          — {typing.map((v) => v.name).join(', ')} {typing.length === 1 ? 'is' : 'are'} typing a reply…
        </strong>
      )}
    </>
  );
}
