// SPEC D6 connection state (docs/decisions/054): the status line static/stream-state.js fills with
// "Reconnecting…" while the page's live stream is down. Empty (and invisible) otherwise.
export function ConnectionState() {
  return <div id="stream-state" class="stream-state" role="status" aria-live="polite"></div>;
}
