// Connection state (SPEC D6, docs/decisions/054): while a live stream of the page is down, the
// status line at the top of the page (#stream-state, role=status) says "Reconnecting…",
// and it is emptied once every stream is open again. htmx's SSE extension says when a stream
// fails (htmx:sseError), opens (htmx:sseOpen) or is closed because its element left the page
// (htmx:sseClose: a navigation, not a lost connection). A failure that is over within a second
// (the browser's own quick reconnect, a page being left) says nothing.
(() => {
  'use strict';
  const GRACE_MS = 1000;
  const TEXT = 'Reconnecting…';
  const down = new Set(); // the live roots whose stream is down
  let timer = null;

  function render() {
    for (const root of down) if (!document.body.contains(root)) down.delete(root);
    const region = document.getElementById('stream-state');
    if (!region) return;
    const text = down.size > 0 ? TEXT : '';
    region.classList.toggle('is-down', down.size > 0);
    if (region.textContent !== text) region.textContent = text;
  }

  document.addEventListener('htmx:sseError', (e) => {
    const root = e.target;
    if (!root || !document.body.contains(root)) return;
    down.add(root);
    if (timer === null)
      timer = setTimeout(() => {
        timer = null;
        render();
      }, GRACE_MS);
  });
  const up = (e) => {
    down.delete(e.target);
    if (down.size === 0 && timer !== null) {
      clearTimeout(timer);
      timer = null;
    }
    render();
  };
  document.addEventListener('htmx:sseOpen', up);
  document.addEventListener('htmx:sseClose', up);
  // A boosted navigation brings a new, empty status line: say it again there if a stream is still down.
  document.addEventListener('htmx:afterSettle', render);
})();
