// Live updates of the ticket list and the dashboards (SPEC C5, docs/decisions/037; the stream and
// the ticket page are static/live.js, which keeps the stream open and says `sse:ticket` events).
(() => {
  'use strict';

  // What the pointer went down on, until it comes up (decisions 119, 120): a live change does not
  // replace what is being pressed (the release would fall on its copy and make no click); what
  // was held back is loaded once the press ends, after the events of that moment (the click the
  // release makes goes first).
  let pressed = null;
  const afterPress = [];
  const pressing = (el) => !!(pressed && el.contains(pressed));
  document.addEventListener(
    'pointerdown',
    (e) => {
      pressed = e.target;
    },
    true,
  );
  const released = () => {
    if (!pressed) return;
    pressed = null;
    setTimeout(() => {
      afterPress.forEach((f) => {
        f();
      });
    }, 0);
  };
  document.addEventListener('pointerup', released, true);
  document.addEventListener('pointercancel', released, true);
  window.addEventListener('blur', released);

  // ── ticket list and dashboards ──
  // The ticket list (SPEC C5). `#ticket-list` hears `sse:ticket`; the named tickets are gathered
  // for LIST_BATCH_MS and asked about under the list's own query (GET /tickets?<query>&live_ids=…,
  // answered with each ticket's row in this list's columns and whether it is in the list now).
  // - A row on the page is changed in place: its cells are replaced, its checkbox (selection,
  //   focus) and its keyboard mark stay, and it does not move (the list's order is the server's
  //   at its last load).
  // - A row that left the list is dimmed and marked "no longer in this list", not removed from
  //   under the pointer; the next load of the list (Show, a filter, a page) leaves it out.
  // - A ticket new to the list goes in only where nothing moves for it: an empty list, or after
  //   the last row of a page that is not full. Otherwise the bar (floating at the window's foot) counts it
  //   ("3 new tickets — Show", said politely) and Show loads the list region, ticks kept.
  // Dashboards: each widget (`data-live-widget`) loads its own fragment again at most once a
  // second while tickets change (the last change is never dropped), and after a reconnect.
  const LIST_BATCH_MS = 300;
  const WIDGET_EVERY_MS = 1000;
  const asked = new Set();
  let batchTimer = null;
  let asking = false;
  const fresh = new Set(); // new tickets of this list held back for the bar
  let reloading = false;
  let keepTicked = null;

  function listRegion() {
    return document.querySelector('[data-live-list]');
  }
  function rowOf(tbody, id) {
    return tbody.querySelector(`tr[data-id="${CSS.escape(String(id))}"]`);
  }
  function keyOf(tr) {
    try {
      return JSON.parse(tr.getAttribute('data-key'));
    } catch {
      return null;
    }
  }
  function compare(a, b) {
    for (let i = 0; i < 2; i++) {
      if (a[i] < b[i]) return -1;
      if (a[i] > b[i]) return 1;
    }
    return 0;
  }

  function ask(ids) {
    ids.forEach((id) => {
      asked.add(String(id));
    });
    if (!batchTimer) batchTimer = setTimeout(askNow, LIST_BATCH_MS);
  }

  function askNow() {
    batchTimer = null;
    const region = listRegion();
    if (!region) {
      asked.clear();
      return;
    }
    if (asked.size === 0) return;
    if (asking) {
      batchTimer = setTimeout(askNow, LIST_BATCH_MS);
      return;
    }
    const ids = Array.from(asked).slice(0, 100);
    ids.forEach((id) => {
      asked.delete(id);
    });
    const query = region.getAttribute('data-live-query') || '';
    asking = true;
    fetch(`/tickets?${query ? `${query}&` : ''}live_ids=${ids.join(',')}`, {
      headers: { 'HX-Request': 'true' },
      credentials: 'same-origin',
    })
      .then((r) => (r.ok ? r.text() : null))
      .then((html) => {
        // A list loaded meanwhile (other filters, Show) is the server's newer word: this answer is dropped.
        if (html && listRegion() === region && region.getAttribute('data-live-query') === query)
          applyRows(region, html);
      })
      .catch(() => {
        /* the next event or reconnect asks again */
      })
      .then(() => {
        asking = false;
        if (asked.size && !batchTimer) batchTimer = setTimeout(askNow, LIST_BATCH_MS);
      });
  }

  function markGone(tr, gone) {
    tr.classList.toggle('live-gone', gone);
    let note = tr.querySelector('.live-gone-note');
    if (gone && !note) {
      const cell = tr.querySelector('td.subject') || tr.querySelector('td:not(.select)');
      if (!cell) return;
      note = document.createElement('span');
      note.className = 'live-gone-note';
      note.textContent = 'no longer in this list';
      cell.appendChild(document.createTextNode(' '));
      cell.appendChild(note);
    } else if (!gone && note) note.remove();
  }

  // A cell being pressed (the subject's link) is not replaced (decision 120): its row is asked
  // about again once the press ends.
  const heldRows = new Set();
  afterPress.push(() => {
    if (heldRows.size) ask(Array.from(heldRows));
    heldRows.clear();
  });
  function updateRow(tr, row) {
    const cells = Array.prototype.slice.call(row.children);
    let changed = false;
    Array.prototype.slice.call(tr.children).forEach((td, i) => {
      const next = cells[i];
      if (!next || td.classList.contains('select')) return; // the checkbox stays: its tick and its focus
      if (td.outerHTML === next.outerHTML) return;
      if (pressing(td)) {
        heldRows.add(tr.getAttribute('data-id')); // asked about again once the press ends
        return;
      }
      changed = true;
      const focused = td.contains(document.activeElement);
      const copy = document.importNode(next, true);
      td.replaceWith(copy);
      if (window.htmx) htmx.process(copy);
      if (focused) {
        const a = copy.querySelector('a, button, input');
        if (a) a.focus();
      }
    });
    tr.setAttribute('data-key', row.getAttribute('data-key'));
    if (!changed) return;
    tr.classList.add('live-changed');
    setTimeout(() => {
      tr.classList.remove('live-changed');
    }, 2000);
  }

  function insertRow(region, tbody, row) {
    const rows = Array.prototype.slice.call(tbody.querySelectorAll('tr[data-id]'));
    const desc = (region.getAttribute('data-sort') || '-updated').charAt(0) === '-';
    const limit = Number(region.getAttribute('data-limit')) || 50;
    const offset = Number(region.getAttribute('data-offset')) || 0;
    const key = keyOf(row);
    const last =
      key !== null &&
      rows.every((tr) => {
        const k = keyOf(tr);
        const c = k ? compare(key, k) : 0;
        return desc ? c < 0 : c > 0;
      });
    if (!((rows.length === 0 && offset === 0) || (last && rows.length > 0 && rows.length < limit))) return false;
    const empty = tbody.querySelector('td.empty');
    if (empty) empty.closest('tr').remove();
    const tr = document.importNode(row, true);
    tbody.appendChild(tr);
    if (window.htmx) htmx.process(tr);
    tr.classList.add('live-changed');
    setTimeout(() => {
      tr.classList.remove('live-changed');
    }, 2000);
    const box = tr.querySelector('input[name="ids"]');
    if (box) box.dispatchEvent(new Event('change', { bubbles: true })); // the selection count and "select all" follow
    return true;
  }

  function applyRows(region, html) {
    const answer = new DOMParser().parseFromString(html, 'text/html').getElementById('live-rows');
    const tbody = region.querySelector('#tickets-table tbody');
    if (!answer || !tbody) return;
    (answer.getAttribute('data-gone') || '')
      .split(',')
      .filter(Boolean)
      .forEach((id) => {
        fresh.delete(id);
        const tr = rowOf(tbody, id);
        if (tr) markGone(tr, true);
      });
    Array.prototype.slice.call(answer.querySelectorAll('tbody > tr[data-id]')).forEach((row) => {
      const id = row.getAttribute('data-id');
      const match = row.getAttribute('data-match') === 'true';
      row.removeAttribute('data-match');
      const tr = rowOf(tbody, id);
      if (tr) {
        updateRow(tr, row);
        markGone(tr, !match);
        return;
      }
      if (!match) {
        fresh.delete(id);
        return;
      }
      if (!fresh.has(id) && !insertRow(region, tbody, row)) fresh.add(id);
    });
    showBar(region);
  }

  function showBar(region) {
    const bar = region.querySelector('[data-live-bar]');
    if (!bar) return;
    const n = fresh.size;
    const text = n === 1 ? '1 new ticket' : `${n} new tickets`;
    const count = bar.querySelector('[data-live-count]');
    bar.hidden = n === 0;
    if (n > 0 && count.textContent !== text) {
      count.textContent = text;
      const say = region.querySelector('[data-live-say]');
      if (say) say.textContent = `${text} in this list: Show loads them.`;
    }
  }

  /** Loads the list region again (Show): ticks kept, the address left as it is, dragged widths kept (app.js). */
  function reloadList(region) {
    const query = region.getAttribute('data-live-query') || '';
    keepTicked = Array.prototype.slice.call(region.querySelectorAll('input[name="ids"]:checked')).map((b) => b.value);
    reloading = true;
    fresh.clear();
    return htmx.ajax('GET', `/tickets${query ? `?${query}` : ''}`, { target: '#ticket-list', swap: 'outerHTML' }).then(
      () => {
        reloading = false;
      },
      () => {
        reloading = false;
      },
    );
  }

  document.addEventListener('sse:ticket', (e) => {
    const el = e.target;
    let data;
    try {
      data = JSON.parse(e.detail.data);
    } catch {
      return;
    }
    if (el.matches && el.matches('[data-live-list]')) ask([data.ticket_id]);
    else if (el.matches && el.matches('[data-live-tick]')) {
      const root = el.closest('[data-live-root]') || document;
      root.querySelectorAll('[data-live-widget]').forEach(widgetSoon);
    }
  });

  // After a reconnect or a reset: the rows on the page are asked about again (what was missed of
  // new tickets comes with the stream's catch-up).
  document.addEventListener('live:refresh', (e) => {
    const region = e.target;
    if (!region.matches || !region.matches('[data-live-list]')) return;
    ask(
      Array.prototype.map.call(region.querySelectorAll('#tickets-table tbody tr[data-id]'), (tr) =>
        tr.getAttribute('data-id'),
      ),
    );
  });

  document.addEventListener('click', (e) => {
    const button = e.target.closest && e.target.closest('[data-live-show]');
    if (!button) return;
    const region = button.closest('[data-live-list]');
    if (region) reloadList(region);
  });

  // Show reloads the list the address already names: no new history entry.
  document.addEventListener('htmx:beforeHistoryUpdate', (e) => {
    if (!reloading || !e.detail || !e.detail.history) return;
    e.detail.history.type = 'replace';
    e.detail.history.path = location.pathname + location.search;
  });
  document.addEventListener('htmx:afterSwap', (e) => {
    const region = listRegion();
    if (!region || !e.detail.target || e.detail.target.id !== 'ticket-list') return;
    // Any new load of the list is the server's whole word: the bar starts again from none.
    fresh.clear();
    if (keepTicked) {
      keepTicked.forEach((id) => {
        const box = region.querySelector(`input[name="ids"][value="${CSS.escape(id)}"]`);
        if (box) box.checked = true;
      });
      keepTicked = null;
    }
  });

  const widgetTimers = new WeakMap();
  function widgetSoon(w) {
    if (widgetTimers.get(w)) return; // one load per WIDGET_EVERY_MS; it reads what is there by then
    widgetTimers.set(
      w,
      setTimeout(() => {
        widgetTimers.delete(w);
        htmx.trigger(w, 'live:load');
      }, WIDGET_EVERY_MS),
    );
  }

  // A widget's new contents are not put in from under the pointer pressing in it (decision 119):
  // its link would be replaced between the press and the release, and the release, on another
  // element, would open nothing. The widget loads again once the press ends.
  const heldWidgets = new Set();
  afterPress.push(() => {
    heldWidgets.forEach((w) => {
      heldWidgets.delete(w);
      if (w.isConnected) widgetSoon(w);
    });
  });
  document.addEventListener('htmx:beforeSwap', (e) => {
    const w = e.detail.target;
    if (!w || !w.matches || !w.matches('[data-live-widget]')) return;
    if (pressing(w)) {
      e.detail.shouldSwap = false;
      heldWidgets.add(w);
    }
  });
})();
