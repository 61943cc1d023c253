// Live updates (SPEC C5, docs/decisions/037). A page's live part sits in an element with
// `hx-ext="sse" sse-connect="/events…" data-live-root`: htmx's SSE extension keeps one stream per
// tab on it, and elements inside listen with `hx-trigger="sse:<event>"` or swap with `sse-swap`.
//
// This file adds what the extension leaves out:
// - the last event id is remembered, and a new EventSource the extension makes after a failed
//   one asks for what came after it (`?after=`; the browser's own reconnects send Last-Event-ID);
// - after a reconnect, or when the server says `reset`, every `[data-live-refresh]` element gets
//   a `live:refresh` event, so parts that missed something load again (their triggers list it).
// The ticket list and the dashboards are static/live-list.js.
(() => {
  'use strict';
  const lastId = {}; // sse-connect URL → last event id seen on it

  function withAfter(url) {
    const id = lastId[url];
    if (!id) return url;
    return `${url}${url.indexOf('?') < 0 ? '?' : '&'}after=${encodeURIComponent(id)}`;
  }

  function refresh(root) {
    root.querySelectorAll('[data-live-refresh]').forEach((el) => {
      htmx.trigger(el, 'live:refresh');
    });
  }

  // Set before htmx processes the page (this script runs after htmx's and the extension's, before DOMContentLoaded).
  if (window.htmx) {
    htmx.createEventSource = (url) => {
      const source = new EventSource(withAfter(url), { withCredentials: true });
      let opened = false;
      const remember = (e) => {
        if (e.lastEventId) lastId[url] = e.lastEventId;
      };
      source.addEventListener('ticket', remember);
      source.addEventListener('open', () => {
        const root = document.querySelector(`[sse-connect="${CSS.escape(url)}"]`);
        // The first open of a brand-new page needs nothing; any later open (the browser's own
        // reconnect, or a new source after a failed one) may have missed what the page shows.
        if (opened || lastId[url]) {
          if (root) refresh(root);
        }
        opened = true;
        if (root) root.setAttribute('data-live-state', 'open');
      });
      source.addEventListener('error', () => {
        const root = document.querySelector(`[sse-connect="${CSS.escape(url)}"]`);
        if (root) root.setAttribute('data-live-state', 'reconnecting');
      });
      source.addEventListener('reset', () => {
        const root = document.querySelector(`[sse-connect="${CSS.escape(url)}"]`);
        if (root) refresh(root);
      });
      return source;
    };
  }

  // ── ticket page (live parts, presence, typing) ──
  // The hidden #ticket-live (data-ticket-live) loads what is new on each `ticket-<id>` event and
  // after a reconnect: `after` is the last history entry the page shows, read when the request
  // goes out (hx-sync queues one more at most), so a repeated or replayed event adds nothing.
  // New entries already on the page (a reply's own answer may have brought them) are dropped.
  // A part the agent is using (a focused select, the subject being edited, the person search)
  // is left as it is and loaded again when the focus leaves it. The reply box is never touched.
  function lastTxnId() {
    let max = 0;
    document.querySelectorAll('#history > li[data-txn-id], #portal-history > li[data-txn-id]').forEach((li) => {
      const n = Number(li.getAttribute('data-txn-id'));
      if (n > max) max = n;
    });
    return max;
  }
  let liveSwap = null; // the data-ticket-live element whose answer is being swapped
  let deferred = null; // the data-ticket-live element with a part left alone for the focus
  const isLive = (elt) => !!(elt && elt.hasAttribute && elt.hasAttribute('data-ticket-live'));
  document.addEventListener('htmx:configRequest', (e) => {
    if (isLive(e.detail.elt)) e.detail.parameters.after = String(lastTxnId());
  });
  // A live load that fails (the server restarting, the reader signed out) is not the reader's to
  // see: nothing is swapped and no error is said; the stream's reconnect loads the parts again.
  document.addEventListener(
    'htmx:beforeSwap',
    (e) => {
      if (isLive(e.target) && e.detail.xhr.status >= 400) {
        e.detail.shouldSwap = false;
        e.stopPropagation();
      }
    },
    true,
  );
  ['htmx:sendError', 'htmx:timeout'].forEach((name) => {
    document.addEventListener(
      name,
      (e) => {
        if (isLive(e.target)) e.stopPropagation();
      },
      true,
    );
  });
  // The reply box stays where it is on the screen while its writer is in it (decision 118): when
  // a live load grows the page above it (new entries in the history, a taller head), the page
  // scrolls by what it grew, if the box is on the screen and has the focus or the pointer. Its
  // text, its caret and the Send button being pressed do not move. Someone reading the history
  // (neither) sees it grow below what they read, as before.
  let replyHeld = null; // { form, top } of the reply box before a live swap, when it is held
  function replyToHold() {
    const form = document.querySelector('#reply-form, #portal-reply');
    if (!form) return null;
    const box = form.getBoundingClientRect();
    if (box.bottom <= 0 || box.top >= window.innerHeight) return null;
    if (!form.contains(document.activeElement) && !form.matches(':hover')) return null;
    return { form, top: box.top };
  }
  document.addEventListener('htmx:beforeSwap', (e) => {
    liveSwap = isLive(e.detail.elt) ? e.detail.elt : null;
    if (liveSwap && e.detail.shouldSwap) replyHeld = replyToHold();
  });
  document.addEventListener('htmx:afterRequest', (e) => {
    if (!isLive(e.detail.elt)) return;
    liveSwap = null;
    const held = replyHeld;
    replyHeld = null;
    if (!held || !held.form.isConnected) return;
    const moved = held.form.getBoundingClientRect().top - held.top;
    if (Math.abs(moved) >= 1) window.scrollBy(0, moved);
  });
  document.addEventListener('htmx:oobBeforeSwap', (e) => {
    const target = e.detail.target;
    if (target.id === 'history' || target.id === 'portal-history') {
      // Whatever swaps into the history: never an entry twice.
      // (An appended fragment's top level are the entries; a whole new history is left as it is.)
      const fragment = e.detail.fragment;
      Array.prototype.slice.call((fragment && fragment.children) || []).forEach((li) => {
        if (li.tagName === 'LI' && li.id && document.getElementById(li.id)) li.remove();
      });
      return;
    }
    if (!liveSwap) return;
    // A part with a link or form whose request is on its way (htmx marks it `htmx-request`) is
    // left as it is: replaced, the element would lose what htmx knows of it, and a boosted link's
    // answer would be shown without its address (the list under the ticket's URL). Its answer
    // brings the part, or the next page.
    if (target.classList.contains('htmx-request') || target.querySelector('.htmx-request')) {
      e.detail.shouldSwap = false;
      return;
    }
    const active = document.activeElement;
    if (
      active &&
      active !== document.body &&
      target.contains(active) &&
      /^(INPUT|SELECT|TEXTAREA|BUTTON)$/.test(active.tagName)
    ) {
      e.detail.shouldSwap = false;
      deferred = liveSwap;
    }
  });
  document.addEventListener('focusout', () => {
    if (!deferred) return;
    // After the focus has moved: load the parts again (left alone again if it moved within one).
    setTimeout(() => {
      const live = deferred;
      deferred = null;
      if (live && document.body.contains(live)) htmx.trigger(live, 'live:refresh');
    }, 0);
  });

  // Typing: the reply box says so at most every 3 s while its writer types (POST …/typing, 204).
  let typedAt = 0;
  document.addEventListener('input', (e) => {
    const box = e.target;
    if (!box || box.id !== 'reply-body') return;
    const root = box.closest('[data-typing-url]');
    if (!root || Date.now() - typedAt < 3000) return;
    typedAt = Date.now();
    fetch(root.getAttribute('data-typing-url'), { method: 'POST', credentials: 'same-origin' }).catch(() => {
      /* presence is best effort */
    });
  });

  // ── collision (stale replies) ──
  // SPEC C5 (docs/decisions/038): a reply refused as stale brings the new entries above the reply
  // text (#reply-stale, swapped out of band) and moves the form's marker past them; a sent one
  // empties that place. The server's fragments do that; here only where eyes and focus go: the
  // warning is scrolled into view, and focus on "Send anyway" when the warning is replaced moves
  // to the new warning's button, or (once sent) to the message box, instead of being lost.
  let focusInWarning = false;
  document.addEventListener('htmx:oobBeforeSwap', (e) => {
    const old = e.detail && e.detail.target;
    if (old && old.id === 'reply-stale') focusInWarning = old.contains(document.activeElement);
  });
  document.addEventListener('htmx:oobAfterSwap', (e) => {
    const warning = e.target;
    if (!warning || warning.id !== 'reply-stale') return;
    const hadFocus = focusInWarning;
    focusInWarning = false;
    if (warning.classList.contains('has-stale')) {
      warning.scrollIntoView({ block: 'nearest' });
      const again = warning.querySelector('[data-send-anyway]');
      if (hadFocus && again) again.focus();
    } else if (hadFocus) {
      const box = document.getElementById('reply-body');
      if (box) box.focus();
    }
  });
})();
