// Relative times keep up with a page left open (SPEC C4; docs/decisions/036). Every half minute
// the words of a <time> under 12 hours old ("just now", "5 min ago", "3 h ago") are said again
// from its `datetime`; older ones ("yesterday", a date) depend on the reader's calendar day and
// keep the words of their render. The exact time stays in the title.
(() => {
  'use strict';
  const RELATIVE = /^(just now|\d+ min ago|\d+ h ago)$/;
  function words(diff) {
    if (diff < 60_000) return diff > -60_000 ? 'just now' : null;
    if (diff < 3_600_000) return `${Math.floor(diff / 60_000)} min ago`;
    if (diff < 12 * 3_600_000) return `${Math.floor(diff / 3_600_000)} h ago`;
    return null;
  }
  function tick() {
    const now = Date.now();
    for (const t of document.querySelectorAll('time[datetime]')) {
      if (!RELATIVE.test(t.textContent)) continue;
      const at = Date.parse(t.getAttribute('datetime'));
      const w = Number.isNaN(at) ? null : words(now - at);
      if (w && w !== t.textContent) t.textContent = w;
    }
  }
  setInterval(tick, 30_000);
  document.addEventListener('visibilitychange', () => {
    if (!document.hidden) tick();
  });
})();
