// hxdesk's only hand-written script: column resizing, the new-ticket dialog, and showing
// (and clearing) request errors next to the form that caused them. Everything else is htmx.
(() => {
  'use strict';
  const MIN = 50;
  const MAX = 800;
  const SUBJECT_MIN = 240;
  /** Widths dragged on this page; kept across htmx swaps of the list, dropped on navigation. */
  const dragged = {};

  const clamp = (w) => Math.max(MIN, Math.min(MAX, Math.round(w)));

  function table() { return document.getElementById('tickets-table'); }

  function colOf(name) { return table()?.querySelector(`col[data-col="${name}"]`); }

  function currentWidths() {
    const out = {};
    table()?.querySelectorAll('col[data-col]').forEach((col) => {
      if (col.dataset.col !== 'Subject') out[col.dataset.col] = parseInt(col.style.width, 10) || MIN;
    });
    return out;
  }

  /** Fixed columns keep their widths; Subject takes what is left (at least SUBJECT_MIN). */
  function fitTable() {
    const t = table();
    if (!t) return;
    const sum = Object.values(currentWidths()).reduce((a, b) => a + b, 0);
    t.style.minWidth = `${sum + (t.querySelector('col[data-col="Subject"]') ? SUBJECT_MIN : 0)}px`;
    const json = JSON.stringify(currentWidths());
    document.querySelectorAll('input[data-widths]').forEach((input) => { input.value = json; });
  }

  function setWidth(name, width) {
    const col = colOf(name);
    if (!col) return;
    const w = clamp(width);
    col.style.width = `${w}px`;
    dragged[name] = w;
    fitTable();
  }

  function applyDragged() {
    for (const [name, w] of Object.entries(dragged)) {
      const col = colOf(name);
      if (col) col.style.width = `${w}px`;
    }
    fitTable();
  }

  // Drag a header's right edge.
  document.addEventListener('pointerdown', (e) => {
    const handle = e.target.closest?.('.resizer');
    if (!handle) return;
    e.preventDefault();
    const name = handle.dataset.resize;
    const th = handle.closest('th');
    const startX = e.clientX;
    const startW = th.getBoundingClientRect().width;
    handle.setPointerCapture?.(e.pointerId);
    document.body.classList.add('resizing');
    const move = (ev) => setWidth(name, startW + (ev.clientX - startX));
    const up = () => {
      document.removeEventListener('pointermove', move);
      document.removeEventListener('pointerup', up);
      document.body.classList.remove('resizing');
    };
    document.addEventListener('pointermove', move);
    document.addEventListener('pointerup', up);
  });

  // Keyboard: arrow keys on a focused resize handle.
  document.addEventListener('keydown', (e) => {
    const handle = e.target.closest?.('.resizer');
    if (!handle || (e.key !== 'ArrowLeft' && e.key !== 'ArrowRight')) return;
    e.preventDefault();
    const th = handle.closest('th');
    const step = e.shiftKey ? 50 : 10;
    setWidth(handle.dataset.resize, th.getBoundingClientRect().width + (e.key === 'ArrowRight' ? step : -step));
  });

  // Dialogs.
  document.addEventListener('click', (e) => {
    const opener = e.target.closest?.('[data-open-dialog]');
    if (opener) {
      const dialog = document.getElementById(opener.dataset.openDialog);
      if (dialog && !dialog.open) dialog.showModal();
    }
    const closer = e.target.closest?.('[data-close-dialog]');
    if (closer) closer.closest('dialog')?.close();
  });

  /** The element a form's errors are shown in (`data-error-target`), if it has one. */
  function errorTarget(elt) {
    const owner = elt?.closest?.('[data-error-target]');
    return owner ? { owner, target: document.querySelector(owner.dataset.errorTarget) } : null;
  }

  // A failed request shows its error where the form asks, instead of being dropped.
  document.addEventListener('htmx:beforeSwap', (e) => {
    const { xhr, requestConfig } = e.detail;
    if (xhr.status < 400) return;
    const where = errorTarget(requestConfig?.elt ?? e.target);
    if (!where?.target) {
      // A boosted link or form that failed shows the error page, as it would without JavaScript.
      if (e.detail.boosted) { e.detail.shouldSwap = true; e.detail.isError = false; }
      return;
    }
    e.detail.shouldSwap = true;
    e.detail.isError = false;
    e.detail.target = where.target;
    e.detail.swapOverride = where.owner.dataset.errorSwap || 'innerHTML';
    // A boosted form is answered with a whole error page: keep only its message next to the form.
    if (e.detail.boosted) e.detail.selectOverride = '.error-page > :not(h1)';
    if (where.target.id !== 'new-ticket-body') where.target.classList.add('has-error');
  });

  document.addEventListener('htmx:sendError', (e) => {
    const where = errorTarget(e.detail.requestConfig?.elt ?? e.target);
    if (!where?.target) return;
    where.target.textContent = 'Could not reach the server. Nothing was sent; your text is still here — try again.';
    where.target.classList.add('has-error');
  });

  document.addEventListener('htmx:timeout', (e) => {
    const where = errorTarget(e.detail.requestConfig?.elt ?? e.target);
    if (where?.target) where.target.textContent = 'The server took too long to answer. Try again.';
  });

  // Typing again clears the error shown for that form.
  document.addEventListener('input', (e) => {
    const where = errorTarget(e.target);
    if (where?.target && where.target.id !== 'new-ticket-body') {
      where.target.textContent = '';
      where.target.classList.remove('has-error');
    }
  });

  // A sent reply empties its text box (keeping the reply/note choice); a failed one keeps every character.
  document.addEventListener('htmx:afterRequest', (e) => {
    const form = e.detail.elt;
    // (`successful` alone is not enough: the error handling above swaps 4xx/5xx answers as non-errors.)
    if (e.detail.successful && e.detail.xhr?.status < 400 && form?.matches?.('form[data-reset-on-success]')) {
      form.querySelectorAll('textarea').forEach((t) => { t.value = ''; });
    }
  });

  document.addEventListener('htmx:afterSettle', (e) => {
    // A boosted link or form is a navigation to another page: its widths are the server's.
    if (e.detail?.boosted) for (const name of Object.keys(dragged)) delete dragged[name];
    applyDragged();
  });
  document.addEventListener('DOMContentLoaded', fitTable);
  if (document.readyState !== 'loading') fitTable();
})();
