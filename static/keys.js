// Keyboard shortcuts (SPEC C4; docs/decisions/036).
(() => {
  'use strict';
  // --- Keyboard shortcuts ---
  // "/" search · "j"/"k" next/previous ticket in the list · Enter open it · "r" public reply ·
  // "n" internal note · Ctrl+Enter (Cmd+Enter) send the reply · "?" this list. None fires while
  // typing in a field (Ctrl+Enter in the reply box excepted) or with Ctrl/Cmd/Alt held. Delegated
  // on document, so htmx swaps keep them. The list of keys is a dialog built here (no markup on
  // every page): Escape closes it and focus goes back where it was.
  const KEYS = [
    ['/', 'Search tickets'],
    ['j', 'Next ticket in the list'],
    ['k', 'Previous ticket in the list'],
    ['Enter', 'Open the highlighted ticket'],
    ['r', 'Write a public reply (ticket page)'],
    ['n', 'Write an internal note (ticket page)'],
    ['Ctrl+Enter', 'Send the reply or note (Cmd+Enter on a Mac)'],
    ['?', 'Show these keys'],
  ];
  const typing = (el) => !!el?.closest?.('input, textarea, select, [contenteditable]:not([contenteditable="false"])');

  function keysDialog() {
    let d = document.getElementById('keys-help');
    if (d) return d;
    d = document.createElement('dialog');
    d.id = 'keys-help';
    d.className = 'keys-help';
    d.setAttribute('aria-labelledby', 'keys-help-title');
    const h = document.createElement('h2');
    h.id = 'keys-help-title';
    h.textContent = 'Keyboard shortcuts';
    const dl = document.createElement('dl');
    for (const [key, what] of KEYS) {
      const dt = document.createElement('dt');
      const kbd = document.createElement('kbd');
      kbd.textContent = key;
      dt.append(kbd);
      const dd = document.createElement('dd');
      dd.textContent = what;
      dl.append(dt, dd);
    }
    const close = document.createElement('button');
    close.type = 'button';
    close.textContent = 'Close';
    close.dataset.closeDialog = '';
    d.append(h, dl, close);
    let back = null;
    d.addEventListener('close', () => {
      if (back?.isConnected) back.focus();
      back = null;
    });
    d.openFrom = (el) => {
      back = el;
      d.showModal();
      close.focus();
    };
    document.body.append(d);
    return d;
  }

  const rows = () =>
    [...document.querySelectorAll('#tickets-table tbody tr')].filter((tr) => tr.querySelector('a[href^="/tickets/"]'));
  const rowLink = (tr) =>
    tr.querySelector('td:not(:has(input)) a[href^="/tickets/"]') ?? tr.querySelector('a[href^="/tickets/"]');
  function moveRow(step) {
    const all = rows();
    if (!all.length) return false;
    const now = all.findIndex((tr) => tr.classList.contains('kbd-current') || tr.contains(document.activeElement));
    const next = all[now < 0 ? (step > 0 ? 0 : all.length - 1) : Math.max(0, Math.min(all.length - 1, now + step))];
    all.forEach((tr) => {
      tr.classList.remove('kbd-current');
      tr.removeAttribute('aria-current');
    });
    next.classList.add('kbd-current');
    next.setAttribute('aria-current', 'true');
    rowLink(next)?.focus();
    next.scrollIntoView({ block: 'nearest' });
    return true;
  }

  function startReply(internal) {
    const form = document.getElementById('reply-form');
    const box = form?.querySelector('textarea[name=body]');
    if (!box) return false;
    const radio = form.querySelector(`input[type=radio][name=internal][value="${internal}"]`);
    if (radio) radio.checked = true;
    box.focus();
    box.scrollIntoView({ block: 'nearest' });
    return true;
  }

  document.addEventListener('keydown', (e) => {
    if (e.defaultPrevented || e.isComposing) return;
    // Ctrl+Enter / Cmd+Enter in the reply box sends it (the form's own submit: htmx or a plain post).
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey) && !e.altKey && !e.shiftKey) {
      const form = e.target.closest?.('#reply-form');
      if (form && e.target.matches('textarea')) {
        e.preventDefault();
        form.requestSubmit();
      }
      return;
    }
    if (e.ctrlKey || e.metaKey || e.altKey || typing(e.target)) return;
    if (document.querySelector('dialog[open]')) return; // a dialog has the keyboard
    let done = false;
    switch (e.key) {
      case '/': {
        const q = document.getElementById('q');
        if (q) {
          q.focus();
          q.select();
          done = true;
        }
        break;
      }
      case 'j':
        done = moveRow(1);
        break;
      case 'k':
        done = moveRow(-1);
        break;
      case 'Enter': {
        const current = document.querySelector('#tickets-table tr.kbd-current');
        if (current && !e.target.closest?.('a, button, summary')) {
          rowLink(current)?.click();
          done = true;
        }
        break;
      }
      case 'r':
        done = startReply(false);
        break;
      case 'n':
        done = startReply(true);
        break;
      case '?':
        keysDialog().openFrom(document.activeElement);
        done = true;
        break;
    }
    if (done) e.preventDefault();
  });
  // Focus (a click, Tab) on another row of the list drops the highlight of the old one.
  document.addEventListener('focusin', (e) => {
    const tr = e.target.closest?.('#tickets-table tbody tr');
    if (!tr) return;
    document.querySelectorAll('#tickets-table tr.kbd-current').forEach((r) => {
      if (r !== tr) {
        r.classList.remove('kbd-current');
        r.removeAttribute('aria-current');
      }
    });
  });
  // --- end Keyboard shortcuts ---
})();
