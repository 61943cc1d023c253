// --- Reply box: the time worked timer (SPEC D4, decision 081) --------------------------------
// Start / Pause / Reset beside the reply's "Minutes" field (name time_minutes). The timer is kept
// in localStorage per ticket ({ startedAt, elapsedMs }: the instant it last started, and the time
// counted before), so it keeps counting across a reload of the page; while it runs, the minutes
// field shows the minutes counted (rounded, at least 1). A sent reply clears it. Without JavaScript
// the controls stay hidden and the field is typed.
(() => {
  'use strict';
  const BOX = '[data-time-timer]';
  const keyOf = (ticket) => `hxdesk-timer-${ticket}`;
  const store = {
    read(ticket) {
      try {
        const v = JSON.parse(localStorage.getItem(keyOf(ticket)) ?? 'null');
        if (v && typeof v.elapsedMs === 'number') return v;
      } catch {}
      return { startedAt: null, elapsedMs: 0 };
    },
    write(ticket, v) {
      try {
        if (v.startedAt === null && v.elapsedMs === 0) localStorage.removeItem(keyOf(ticket));
        else localStorage.setItem(keyOf(ticket), JSON.stringify(v));
      } catch {}
    },
  };
  const elapsed = (v) => v.elapsedMs + (v.startedAt === null ? 0 : Math.max(0, Date.now() - v.startedAt));
  const clockText = (ms) => {
    const s = Math.floor(ms / 1000);
    const h = Math.floor(s / 3600);
    const m = Math.floor((s % 3600) / 60);
    const ss = String(s % 60).padStart(2, '0');
    return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${ss}` : `${m}:${ss}`;
  };

  /** Draws one timer box from its stored state; fills the minutes while it runs or has counted. */
  function draw(box, fill) {
    const ticket = box.dataset.timeTimer;
    const v = store.read(ticket);
    const ms = elapsed(v);
    const clock = box.querySelector('[data-timer-clock]');
    const start = box.querySelector('[data-timer-start]');
    if (clock) clock.textContent = clockText(ms);
    if (start) {
      start.textContent = v.startedAt === null ? (ms > 0 ? 'Resume timer' : 'Start timer') : 'Pause timer';
      start.setAttribute('aria-pressed', v.startedAt === null ? 'false' : 'true');
    }
    const minutes = box.querySelector('input[name=time_minutes]');
    if (minutes && fill && ms > 0) minutes.value = String(Math.max(1, Math.round(ms / 60000)));
  }

  function say(box, text) {
    const said = box.querySelector('[data-timer-said]');
    if (said) said.textContent = text;
  }

  function init(root) {
    for (const box of root.querySelectorAll?.(BOX) ?? []) {
      if (box.dataset.timerReady) continue;
      box.dataset.timerReady = '1';
      const controls = box.querySelector('.timer-controls');
      if (controls) controls.hidden = false;
      draw(box, true);
    }
  }

  document.addEventListener('click', (e) => {
    const box = e.target.closest?.(BOX);
    if (!box) return;
    const ticket = box.dataset.timeTimer;
    const v = store.read(ticket);
    if (e.target.closest('[data-timer-start]')) {
      if (v.startedAt === null) {
        store.write(ticket, { startedAt: Date.now(), elapsedMs: v.elapsedMs });
        say(box, 'Timer started');
      } else {
        store.write(ticket, { startedAt: null, elapsedMs: elapsed(v) });
        say(box, `Timer paused at ${clockText(elapsed(v))}`);
      }
      draw(box, true);
    } else if (e.target.closest('[data-timer-reset]')) {
      store.write(ticket, { startedAt: null, elapsedMs: 0 });
      const minutes = box.querySelector('input[name=time_minutes]');
      if (minutes) minutes.value = '';
      say(box, 'Timer reset');
      draw(box, false);
    }
  });

  // A sent reply (2xx/3xx) takes its time with it: the timer starts again from nothing.
  document.addEventListener('htmx:afterRequest', (e) => {
    const form = e.detail.elt?.closest?.('form');
    const box = form?.querySelector?.(BOX);
    if (!box || !e.detail.successful || !(e.detail.xhr?.status < 400)) return;
    store.write(box.dataset.timeTimer, { startedAt: null, elapsedMs: 0 });
    const minutes = box.querySelector('input[name=time_minutes]');
    if (minutes) minutes.value = '';
    draw(box, false);
  });

  // Ticks once a second while a timer runs (its state is in storage: a tick only redraws).
  setInterval(() => {
    for (const box of document.querySelectorAll(BOX))
      if (store.read(box.dataset.timeTimer).startedAt !== null) draw(box, true);
  }, 1000);

  document.addEventListener('DOMContentLoaded', () => init(document));
  document.addEventListener('htmx:load', (e) => init(e.detail.elt ?? document));
})();
