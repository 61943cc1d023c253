import type { Viewer } from '../events/hub.js';

/** Who else is on a ticket page (SPEC C5): swapped in by the page's live stream (`event: presence`). */
export function Presence({ viewers }: { viewers: Viewer[] }) {
  if (viewers.length === 0) return <div id="presence" class="presence" role="status" aria-live="polite"></div>;
  const typing = viewers.filter((v) => v.typing);
  return (
    <div id="presence" class="presence" role="status" aria-live="polite">
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
    </div>
  );
}
