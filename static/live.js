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
