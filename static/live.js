// Live updates (SPEC C5, docs/decisions/037). A page's live part sits in an element with
// `hx-ext="sse" sse-connect="/events…" data-live-root`: htmx's SSE extension keeps one stream per
// tab on it, and elements inside listen with `hx-trigger="sse:<event>"` or swap with `sse-swap`.
//
// This file adds what the extension leaves out:
// - the last event id is remembered, and a new EventSource the extension makes after a failed
//   one asks for what came after it (`?after=`; the browser's own reconnects send Last-Event-ID);
// - after a reconnect, or when the server says `reset`, every `[data-live-refresh]` element gets
//   a `live:refresh` event, so parts that missed something load again (their triggers list it).
(function () {
  'use strict';
  var lastId = {}; // sse-connect URL → last event id seen on it

  function withAfter(url) {
    var id = lastId[url];
    if (!id) return url;
    return url + (url.indexOf('?') < 0 ? '?' : '&') + 'after=' + encodeURIComponent(id);
  }

  function refresh(root) {
    root.querySelectorAll('[data-live-refresh]').forEach(function (el) { htmx.trigger(el, 'live:refresh'); });
  }

  // Set before htmx processes the page (this script runs after htmx's and the extension's, before DOMContentLoaded).
  if (window.htmx) {
    htmx.createEventSource = function (url) {
      var source = new EventSource(withAfter(url), { withCredentials: true });
      var opened = false;
      var remember = function (e) { if (e.lastEventId) lastId[url] = e.lastEventId; };
      source.addEventListener('ticket', remember);
      source.addEventListener('open', function () {
        var root = document.querySelector('[sse-connect="' + CSS.escape(url) + '"]');
        // The first open of a brand-new page needs nothing; any later open (the browser's own
        // reconnect, or a new source after a failed one) may have missed what the page shows.
        if (opened || lastId[url]) { if (root) refresh(root); }
        opened = true;
        if (root) root.setAttribute('data-live-state', 'open');
      });
      source.addEventListener('error', function () {
        var root = document.querySelector('[sse-connect="' + CSS.escape(url) + '"]');
        if (root) root.setAttribute('data-live-state', 'reconnecting');
      });
      source.addEventListener('reset', function () {
        var root = document.querySelector('[sse-connect="' + CSS.escape(url) + '"]');
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
    var max = 0;
    document.querySelectorAll('#history > li[data-txn-id], #portal-history > li[data-txn-id]').forEach(function (li) {
      var n = Number(li.getAttribute('data-txn-id'));
      if (n > max) max = n;
    });
    return max;
  }
  var liveSwap = null; // the data-ticket-live element whose answer is being swapped
  var deferred = null; // the data-ticket-live element with a part left alone for the focus
  var isLive = function (elt) { return !!(elt && elt.hasAttribute && elt.hasAttribute('data-ticket-live')); };
  document.addEventListener('htmx:configRequest', function (e) {
    if (isLive(e.detail.elt)) e.detail.parameters.after = String(lastTxnId());
  });
  // A live load that fails (the server restarting, the reader signed out) is not the reader's to
  // see: nothing is swapped and no error is said; the stream's reconnect loads the parts again.
  document.addEventListener('htmx:beforeSwap', function (e) {
    if (isLive(e.target) && e.detail.xhr.status >= 400) { e.detail.shouldSwap = false; e.stopPropagation(); }
  }, true);
  ['htmx:sendError', 'htmx:timeout'].forEach(function (name) {
    document.addEventListener(name, function (e) { if (isLive(e.target)) e.stopPropagation(); }, true);
  });
  document.addEventListener('htmx:beforeSwap', function (e) { liveSwap = isLive(e.detail.elt) ? e.detail.elt : null; });
  document.addEventListener('htmx:afterRequest', function (e) { if (isLive(e.detail.elt)) liveSwap = null; });
  document.addEventListener('htmx:oobBeforeSwap', function (e) {
    var target = e.detail.target;
    if (target.id === 'history' || target.id === 'portal-history') {
      // Whatever swaps into the history: never an entry twice.
      // (An appended fragment's top level are the entries; a whole new history is left as it is.)
      var fragment = e.detail.fragment;
      Array.prototype.slice.call((fragment && fragment.children) || []).forEach(function (li) {
        if (li.tagName === 'LI' && li.id && document.getElementById(li.id)) li.remove();
      });
      return;
    }
    if (!liveSwap) return;
    var active = document.activeElement;
    if (active && active !== document.body && target.contains(active) && /^(INPUT|SELECT|TEXTAREA|BUTTON)$/.test(active.tagName)) {
      e.detail.shouldSwap = false;
      deferred = liveSwap;
    }
  });
  document.addEventListener('focusout', function () {
    if (!deferred) return;
    // After the focus has moved: load the parts again (left alone again if it moved within one).
    setTimeout(function () {
      var live = deferred;
      deferred = null;
      if (live && document.body.contains(live)) htmx.trigger(live, 'live:refresh');
    }, 0);
  });

  // Typing: the reply box says so at most every 3 s while its writer types (POST …/typing, 204).
  var typedAt = 0;
  document.addEventListener('input', function (e) {
    var box = e.target;
    if (!box || box.id !== 'reply-body') return;
    var root = box.closest('[data-typing-url]');
    if (!root || Date.now() - typedAt < 3000) return;
    typedAt = Date.now();
    fetch(root.getAttribute('data-typing-url'), { method: 'POST', credentials: 'same-origin' }).catch(function () { /* presence is best effort */ });
  });


  // ── ticket list and dashboards ──

  // ── collision (stale replies) ──
  // SPEC C5 (docs/decisions/040): a reply refused as stale brings the new entries above the reply
  // text (#reply-stale, swapped out of band) and moves the form's marker past them; a sent one
  // empties that place. The server's fragments do that; here only where eyes and focus go: the
  // warning is scrolled into view, and focus on "Send anyway" when the warning is replaced moves
  // to the new warning's button, or (once sent) to the message box, instead of being lost.
  var focusInWarning = false;
  document.addEventListener('htmx:oobBeforeSwap', function (e) {
    var old = e.detail && e.detail.target;
    if (old && old.id === 'reply-stale') focusInWarning = old.contains(document.activeElement);
  });
  document.addEventListener('htmx:oobAfterSwap', function (e) {
    var warning = e.target;
    if (!warning || warning.id !== 'reply-stale') return;
    var hadFocus = focusInWarning;
    focusInWarning = false;
    if (warning.classList.contains('has-stale')) {
      warning.scrollIntoView({ block: 'nearest' });
      var again = warning.querySelector('[data-send-anyway]');
      if (hadFocus && again) again.focus();
    } else if (hadFocus) {
      var box = document.getElementById('reply-body');
      if (box) box.focus();
    }
  });
})();
