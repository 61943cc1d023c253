// --- The conversation (SPEC D6, docs/decisions/053): Reply quoting and @mentions ----------------
// Reply: a history entry's "Reply" link puts its text, quoted under "On <date>, <name> wrote:",
// into the reply box and focuses it (the text comes from the entry's JSON; the quoting is
// src/views/tickets/quote.tsx's). The box's value is set and an input event fired, as typing
// does, so whatever keeps drafts sees it. Without JavaScript the link opens the page with
// ?quote=<id>, whose box has the quote already.
// Mentions: in an internal note, "@" and letters open a list of staff from the people search
// (GET /users?q=, the search behind the watcher fields), an ARIA listbox driven from the text
// box (arrows move, Enter or Tab pick, Esc closes). A pick writes `@local-part` (or the whole
// address when another staff member's address has the same local part), which the server reads.
(() => {
  'use strict';
  const BOX = 'form[data-reply-box]';
  const areaOf = (form) => form?.querySelector('textarea[name=body]');

  // ---- Reply quoting ----
  /** The message without its signature (from the first "-- " line), quoted line by line. */
  function quoteText(head, body) {
    const text = body.replace(/\r\n?/g, '\n');
    const sig = /\n-- ?\n/.exec(`\n${text}`);
    const message = (sig ? text.slice(0, Math.max(0, sig.index - 1)) : text).replace(/\s+$/, '');
    const lines = message.split('\n').map((l) => (l === '' ? '>' : `> ${l}`));
    return `${head}\n${lines.join('\n')}\n\n`;
  }

  async function quote(link) {
    const form = document.querySelector(BOX);
    const area = areaOf(form);
    const ticket = link.closest('[data-ticket-id]')?.dataset.ticketId;
    if (!area || !ticket) return false;
    let answer;
    try {
      const res = await fetch(`/tickets/${ticket}/transactions/${link.dataset.quote}`, {
        headers: { accept: 'application/json' },
        credentials: 'same-origin',
      });
      if (!res.ok) return false;
      answer = await res.json();
    } catch {
      return false;
    }
    const text = quoteText(link.dataset.quoteHead ?? '', answer.transaction?.body ?? '');
    const before = area.value.replace(/\s+$/, '');
    area.value = before === '' ? text : `${before}\n\n${text}`;
    area.dispatchEvent(new Event('input', { bubbles: true }));
    area.focus();
    area.setSelectionRange(area.value.length, area.value.length);
    area.scrollIntoView({ block: 'nearest' });
    return true;
  }

  document.addEventListener('click', (e) => {
    const link = e.target.closest?.('a[data-quote]');
    if (!link || e.button !== 0 || e.ctrlKey || e.metaKey || e.shiftKey || e.altKey) return;
    if (!document.querySelector(BOX)) return; // no reply box here (a deleted ticket): the link's page says why
    e.preventDefault();
    quote(link).then((done) => {
      if (!done) window.location.href = link.href; // the page fills the box instead
    });
  });

  // ---- Mentions ----
  const LIST_ID = 'mention-list';
  let state = null; // { area, start, query, people, active, list, seq }
  let seq = 0;

  const isNote = (form) => form?.querySelector('input[name=internal]:checked')?.value === 'true';

  /** The "@word" just before the caret: where its "@" is and what follows it. */
  function tokenAtCaret(area) {
    const end = area.selectionStart;
    if (end !== area.selectionEnd) return null;
    const before = area.value.slice(0, end);
    const m = /(^|[\s([{,;:!?"'*_~])@([\p{L}\p{N}._%+-]{1,60})$/u.exec(before);
    return m ? { start: end - m[2].length - 1, query: m[2] } : null;
  }

  function close() {
    if (!state) return;
    state.list.remove();
    state.area.removeAttribute('aria-activedescendant');
    state.area.removeAttribute('aria-controls');
    state.area.removeAttribute('aria-autocomplete');
    const status = document.getElementById('mention-status');
    if (status) status.textContent = '';
    state = null;
  }

  const localPart = (email) => email.slice(0, email.lastIndexOf('@'));

  function tokenFor(person, people) {
    const local = localPart(person.email);
    return people.some((p) => p.id !== person.id && localPart(p.email) === local) ? person.email : local;
  }

  function render() {
    const { list, people, active, area } = state;
    list.replaceChildren(
      ...people.map((p, i) => {
        const li = document.createElement('li');
        li.id = `mention-option-${p.id}`;
        li.setAttribute('role', 'option');
        li.setAttribute('aria-selected', String(i === active));
        li.dataset.index = String(i);
        const name = document.createElement('span');
        name.textContent = p.name || p.email;
        const email = document.createElement('span');
        email.className = 'muted';
        email.textContent = ` ${p.email}`;
        li.append(name, email);
        return li;
      }),
    );
    if (people[active]) {
      area.setAttribute('aria-activedescendant', `mention-option-${people[active].id}`);
      list.children[active]?.scrollIntoView({ block: 'nearest' });
    } else area.removeAttribute('aria-activedescendant');
  }

  function announce(text) {
    let status = document.getElementById('mention-status');
    if (!status) {
      status = document.createElement('div');
      status.id = 'mention-status';
      status.className = 'visually-hidden';
      status.setAttribute('role', 'status');
      document.querySelector(BOX)?.append(status);
    }
    status.textContent = text;
  }

  async function suggest(area, token) {
    const mine = ++seq;
    let people = [];
    try {
      const res = await fetch(`/users?q=${encodeURIComponent(token.query)}&limit=50`, {
        headers: { accept: 'application/json' },
        credentials: 'same-origin',
      });
      if (res.ok) people = ((await res.json()).users ?? []).filter((u) => u.role !== 'requester' && !u.disabled);
    } catch {
      people = [];
    }
    if (mine !== seq) return; // a later keystroke asked again
    const now = tokenAtCaret(area);
    if (!now || now.start !== token.start || !isNote(area.form)) return close();
    if (people.length === 0) {
      close();
      announce(`Nobody on the staff matches “${token.query}”.`);
      return;
    }
    people = people.slice(0, 8);
    if (!state) {
      const list = document.createElement('ul');
      list.id = LIST_ID;
      list.className = 'mention-list';
      list.setAttribute('role', 'listbox');
      list.setAttribute('aria-label', 'Staff to mention');
      area.insertAdjacentElement('afterend', list);
      area.setAttribute('aria-controls', LIST_ID);
      area.setAttribute('aria-autocomplete', 'list');
      state = { area, list };
    }
    Object.assign(state, { start: token.start, query: token.query, people, active: 0 });
    render();
    announce(`${people.length} ${people.length === 1 ? 'person' : 'people'} to mention: arrows choose, Enter picks.`);
  }

  function pick(i) {
    const { area, start, people } = state;
    const person = people[i];
    if (!person) return close();
    const end = area.selectionStart;
    const token = `@${tokenFor(person, people)} `;
    area.setRangeText(token, start, end, 'end');
    close();
    area.focus();
    area.dispatchEvent(new Event('input', { bubbles: true }));
    announce(`Mentioned ${person.name || person.email}.`);
  }

  document.addEventListener('input', (e) => {
    const area = e.target;
    if (!area.matches?.(`${BOX} textarea[name=body]`)) return;
    const token = isNote(area.form) ? tokenAtCaret(area) : null;
    if (!token) return close();
    if (state && state.start === token.start && state.query === token.query) return;
    suggest(area, token);
  });

  document.addEventListener(
    'keydown',
    (e) => {
      if (!state || e.target !== state.area) return;
      const n = state.people.length;
      if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
        state.active = (state.active + (e.key === 'ArrowDown' ? 1 : n - 1)) % n;
        render();
      } else if ((e.key === 'Enter' && !e.ctrlKey && !e.metaKey) || (e.key === 'Tab' && !e.shiftKey)) {
        pick(state.active);
      } else if (e.key === 'Escape') {
        close();
      } else return;
      e.preventDefault();
      e.stopImmediatePropagation();
    },
    true,
  );

  document.addEventListener('mousedown', (e) => {
    const option = e.target.closest?.(`#${LIST_ID} [role=option]`);
    if (option && state) {
      e.preventDefault(); // the text box keeps the focus
      pick(Number(option.dataset.index));
    } else if (state && !e.target.closest?.(`#${LIST_ID}`) && e.target !== state.area) close();
  });
  document.addEventListener('focusout', (e) => {
    if (state && e.target === state.area)
      setTimeout(() => state && document.activeElement !== state.area && close(), 0);
  });
  document.addEventListener('change', (e) => {
    if (e.target.matches?.(`${BOX} input[name=internal]`)) close(); // a public reply mentions nobody
  });
  document.addEventListener('htmx:beforeRequest', () => close());
})();
