// The ticket list's row selection and bulk action bar (SPEC C4; docs/decisions/035).
(() => {
  'use strict';
  // --- Ticket list: selection and bulk actions ---
  // The row checkboxes belong to the bulk form (form="bulk-form"); "select all" ticks this page's.
  // The count and the Apply button follow the selection; without JavaScript the form still posts.
  function bulkState() {
    const form = document.getElementById('bulk-form');
    if (!form) return;
    const boxes = [...document.querySelectorAll('input[name="ids"][form="bulk-form"]')];
    const n = boxes.filter((b) => b.checked).length;
    const count = document.getElementById('bulk-count');
    if (count) count.textContent = `${n} selected`;
    const apply = form.querySelector('[data-bulk-apply]');
    if (apply) apply.disabled = n === 0;
    form.classList.toggle('has-selection', n > 0);
    form.classList.toggle('idle', n === 0); // (only with JavaScript: a phone folds the idle bar)
    const all = document.querySelector('input[data-select-all]');
    if (all) {
      all.checked = boxes.length > 0 && n === boxes.length;
      all.indeterminate = n > 0 && n < boxes.length;
    }
  }
  document.addEventListener('change', (e) => {
    const t = e.target;
    if (t?.matches?.('input[data-select-all]')) {
      document.querySelectorAll('input[name="ids"][form="bulk-form"]').forEach((b) => {
        b.checked = t.checked;
      });
      bulkState();
    } else if (t?.matches?.('input[name="ids"][form="bulk-form"]')) bulkState();
  });
  document.addEventListener('htmx:afterSettle', bulkState);
  // SPEC D6: "Cancel" on the bulk delete question takes it away and nothing changes.
  document.addEventListener('click', (e) => {
    const cancel = e.target?.closest?.('[data-bulk-cancel]');
    if (!cancel) return;
    const place = cancel.closest('.bulk-result');
    if (place) {
      place.textContent = '';
      place.classList.remove('has-error');
    }
    document.querySelector('#bulk-form [data-bulk-apply]')?.focus();
  });
  document.addEventListener('DOMContentLoaded', bulkState);
  if (document.readyState !== 'loading') bulkState();
  // --- end: Ticket list: selection and bulk actions ---
})();
