// hxdesk's hand-written script, in parts: this file (column resizing, the new-ticket dialog, people
// suggestions, request errors said next to their form, in words when the answer is unusable),
// keys.js (keyboard shortcuts), bulk.js (list selection), reply-box.js (files, canned responses).
(() => {
  'use strict';
  const MIN = 50;
  const MAX = 800;
  const SUBJECT_MIN = 240;
  /** Widths dragged on this page; kept across htmx swaps of the list, dropped on navigation. */
  const dragged = {};

  const clamp = (w) => Math.max(MIN, Math.min(MAX, Math.round(w)));

  function table() {
    return document.getElementById('tickets-table');
  }

  function colOf(name) {
    return table()?.querySelector(`col[data-col="${name}"]`);
  }

  function currentWidths() {
    const out = {};
    table()
      ?.querySelectorAll('col[data-col]')
      .forEach((col) => {
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
    document.querySelectorAll('input[data-widths]').forEach((input) => {
      input.value = json;
    });
  }

  function setWidth(name, width) {
    const col = colOf(name);
    if (!col) return;
    const w = clamp(width);
    col.style.width = `${w}px`;
    table()?.querySelector(`.resizer[data-resize="${name}"]`)?.setAttribute('aria-valuenow', String(w)); // a focusable separator says its value
    dragged[name] = w;
    fitTable();
  }

  function applyDragged() {
    for (const [name, w] of Object.entries(dragged)) {
      const col = colOf(name);
      if (col) col.style.width = `${w}px`;
      table()?.querySelector(`.resizer[data-resize="${name}"]`)?.setAttribute('aria-valuenow', String(w)); // the separator says the width kept
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

  // The column picker keeps one column: the last ticked box does not untick, and says why (an
  // empty choice would show the default columns beside a picker with nothing ticked).
  document.addEventListener('click', (e) => {
    const box = e.target.closest?.('.column-picker input[type=checkbox][name=columns]');
    if (!box) return;
    const hint = box.closest('fieldset')?.querySelector('#columns-hint');
    if (hint) hint.textContent = '';
    if (!box.checked && !box.closest('fieldset').querySelector('input[name=columns]:checked')) {
      e.preventDefault(); // the box stays ticked and no change is sent
      if (hint) hint.textContent = 'At least one column stays visible.';
    }
  });

  // Dialogs.
  document.addEventListener('click', (e) => {
    const opener = e.target.closest?.('[data-open-dialog]');
    if (opener) {
      const dialog = document.getElementById(opener.dataset.openDialog);
      if (dialog && !dialog.open) {
        dialog.showModal();
        focusFirstField(dialog);
      }
    }
    const closer = e.target.closest?.('[data-close-dialog]');
    if (closer) closer.closest('dialog')?.close();
  });

  // --- Dialog focus ---
  // An opened dialog puts focus in its first field (a field the server marked invalid first), not
  // on the dialog itself; its content may arrive later (htmx), so the same happens after a swap
  // inside an open dialog that left focus outside a field of it.
  const FIELD = 'input:not([type=hidden]):not([disabled]), select:not([disabled]), textarea:not([disabled])';
  function focusFirstField(dialog) {
    const target =
      dialog.querySelector('[aria-invalid="true"]') ??
      dialog.querySelector('[autofocus]') ??
      dialog.querySelector(FIELD) ??
      dialog.querySelector('button, a[href], [tabindex]:not([tabindex="-1"])');
    target?.focus();
  }
  document.addEventListener('htmx:afterSettle', (e) => {
    const dialog = e.detail?.target?.closest?.('dialog[open]');
    if (!dialog) return;
    const active = document.activeElement;
    if (!active || active === document.body || !dialog.contains(active) || !active.matches(FIELD))
      focusFirstField(dialog);
  });
  // --- end Dialog focus ---

  // ---- People fields (Requester, Cc, "add someone"): suggestions as one types -----------------
  // The input asks GET /users?q=<the part being typed> (htmx, hx-params="none": q is set here) and
  // the answer's options fill the listbox under it (a combobox: arrows, Enter, Escape, click).
  // Picking puts the person's address in place of the typed part. Without JavaScript: a text field.

  const PEOPLE = '[data-people-search]';
  const PEOPLE_Q_MAX = 200;
  const PEOPLE_LIMIT = '8';
  const isPeopleSearch = (elt) => !!elt?.matches?.(PEOPLE);
  const isMultiple = (input) => input.dataset.peopleSearch === 'multiple';

  /** What is being typed: the text after the last comma (the whole text for one person). */
  function typedPart(input) {
    const v = input.value;
    return (isMultiple(input) ? v.slice(v.lastIndexOf(',') + 1) : v).trim();
  }

  function listOf(input) {
    return document.getElementById(input.getAttribute('aria-controls'));
  }
  const choices = (list) => [...list.querySelectorAll('[role="option"]:not([aria-disabled="true"])')];

  function closeList(input) {
    const list = listOf(input);
    if (list) {
      list.hidden = true;
      list.replaceChildren();
    }
    input.setAttribute('aria-expanded', 'false');
    input.removeAttribute('aria-activedescendant');
  }

  function setActive(input, option) {
    listOf(input)
      ?.querySelectorAll('[aria-selected="true"]')
      .forEach((o) => {
        o.setAttribute('aria-selected', 'false');
      });
    if (!option) {
      input.removeAttribute('aria-activedescendant');
      return;
    }
    option.setAttribute('aria-selected', 'true');
    input.setAttribute('aria-activedescendant', option.id);
    option.scrollIntoView({ block: 'nearest' });
  }

  function pick(input, option) {
    const value = option?.dataset.value;
    if (!value) return;
    if (isMultiple(input)) {
      const cut = input.value.lastIndexOf(',');
      const earlier =
        cut < 0
          ? []
          : input.value
              .slice(0, cut)
              .split(',')
              .map((s) => s.trim())
              .filter(Boolean);
      // ", " after it: the next person can be typed straight away (the server ignores empty entries).
      input.value = `${[...earlier, value].join(', ')}, `;
    } else {
      input.value = value;
    }
    // What was picked is not asked about: a search typed before the pick and still waiting in
    // htmx's queue would otherwise send the picked address and open the list over the form.
    input.dataset.picked = input.value;
    closeList(input);
    input.focus();
    input.setSelectionRange(input.value.length, input.value.length);
  }

  document.addEventListener('htmx:configRequest', (e) => {
    const input = e.detail.elt;
    if (!isPeopleSearch(input)) return;
    const q = typedPart(input).slice(0, PEOPLE_Q_MAX);
    if (q === '' || input.dataset.picked === input.value) {
      e.preventDefault();
      closeList(input);
      return;
    }
    e.detail.parameters.q = q;
    e.detail.parameters.limit = PEOPLE_LIMIT;
  });

  document.addEventListener('htmx:afterSwap', (e) => {
    const input = e.detail.requestConfig?.elt;
    if (!isPeopleSearch(input)) return;
    const list = listOf(input);
    const options = [...list.querySelectorAll('[role="option"]')];
    options.forEach((o, i) => {
      o.id = `${list.id}-${i}`;
    });
    const open =
      options.length > 0 &&
      document.activeElement === input &&
      typedPart(input) !== '' &&
      input.dataset.picked !== input.value;
    if (!open) {
      closeList(input);
      return;
    }
    list.hidden = false;
    input.setAttribute('aria-expanded', 'true');
    input.removeAttribute('aria-activedescendant');
  });

  document.addEventListener('keydown', (e) => {
    const input = e.target;
    if (!isPeopleSearch(input)) return;
    const list = listOf(input);
    if (!list || list.hidden) return;
    const options = choices(list);
    const at = options.findIndex((o) => o.getAttribute('aria-selected') === 'true');
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      if (options.length === 0) return;
      const next = e.key === 'ArrowDown' ? (at + 1) % options.length : (at <= 0 ? options.length : at) - 1;
      setActive(input, options[next]);
    } else if (e.key === 'Enter' && at >= 0) {
      e.preventDefault(); // picks; does not send the form
      pick(input, options[at]);
    } else if (e.key === 'Escape') {
      e.preventDefault(); // closes the list, not the dialog around it
      e.stopPropagation();
      closeList(input);
    }
  });

  // The field keeps its focus while an option is clicked.
  document.addEventListener('mousedown', (e) => {
    if (e.target.closest?.('.person-options')) e.preventDefault();
  });
  document.addEventListener('click', (e) => {
    const option = e.target.closest?.('.person-options [role="option"]:not([aria-disabled="true"])');
    if (!option) return;
    const input = document.querySelector(`[aria-controls="${option.parentElement.id}"]`);
    if (input) pick(input, option);
  });
  document.addEventListener('focusout', (e) => {
    if (isPeopleSearch(e.target)) closeList(e.target);
  });

  /** The element a form's errors are shown in (`data-error-target`), if it has one. */
  function errorTarget(elt) {
    const owner = elt?.closest?.('[data-error-target]');
    return owner ? { owner, target: document.querySelector(owner.dataset.errorTarget) } : null;
  }

  // ---- Failures without a usable answer, in words (SPEC C4) ------------------------------------
  // A network error, a 5xx with an empty body, a proxy's own error page: nothing the server
  // wrote for the form. The form says so itself (its error element, e.g. below the reply box),
  // keeps what was typed, and the words go when the person types again or a request succeeds.

  const REASON = {
    400: 'Bad Request',
    404: 'Not Found',
    408: 'Request Timeout',
    413: 'Content Too Large',
    429: 'Too Many Requests',
    500: 'Internal Server Error',
    502: 'Bad Gateway',
    503: 'Service Unavailable',
    504: 'Gateway Timeout',
  };

  /** The form (or the element outside any form) a request came from. */
  function sourceOf(detail, fallback) {
    const elt = detail?.requestConfig?.elt ?? detail?.elt ?? fallback;
    return elt?.closest?.('form') ?? elt?.form ?? elt;
  }

  /**
   * Where the words go: the form's own error element; a note at the end of the form when it has
   * none (or when that element is the box the form lives in, as in the new-ticket dialog); a
   * notice pinned to the bottom of the screen (or of an open dialog) for links.
   */
  function wordsPlace(source, create = true) {
    const where = errorTarget(source);
    if (where?.target && !where.target.contains(source)) return where.target;
    if (source?.tagName === 'FORM')
      return alertIn(source, 'request-error', 'field-error form-error request-error', create);
    return alertIn(
      document.querySelector('dialog[open]') ?? document.body,
      'page-notice',
      'request-error page-notice',
      create,
    );
  }

  /** The host's own alert element of that class, made (at its end) when missing and `create`. */
  function alertIn(host, cls, classes, create) {
    let el = host.querySelector(`:scope > .${cls}`);
    if (!el && create) {
      el = document.createElement('div');
      el.className = classes;
      el.setAttribute('role', 'alert');
      host.append(el);
    }
    return el;
  }

  function say(source, text) {
    const place = wordsPlace(source);
    place.textContent = text;
    place.classList.add('has-error');
    place.dataset.words = 'true';
  }

  /** Clears the words said for `source` (and the page notice). */
  function unsay(source) {
    const places = [...document.querySelectorAll('.page-notice')];
    if (source) places.push(wordsPlace(source, false));
    for (const place of places) {
      if (place?.dataset.words !== 'true') continue;
      place.textContent = '';
      place.classList.remove('has-error');
      delete place.dataset.words;
    }
  }

  const kept = (source) => (source?.tagName === 'FORM' ? ' What you entered is still here.' : '');
  const writes = (detail) => (detail?.requestConfig?.verb ?? 'get').toLowerCase() !== 'get';

  function unusableWords(detail, source) {
    const status = detail.xhr.status;
    const what = `${status} ${detail.xhr.statusText || REASON[status] || ''}`.trim();
    if (!writes(detail))
      return `Could not load this: the server answered ${what} without an explanation. Try again in a moment.`;
    if (status === 413) return `Not saved: it is larger than the server accepts (${what}).${kept(source)}`;
    if (status === 429) return `Not saved: too many requests (${what}). Wait a moment and try again.${kept(source)}`;
    if (status >= 500)
      return `The server could not answer (${what}), so this may not have been saved.${kept(source)} Try again in a moment.`;
    return `The server refused this without an explanation (${what}).${kept(source)}`;
  }

  /**
   * True when a failed answer is ours to show: an HTML fragment for htmx, or (for a boosted
   * navigation) a page holding our error. Not: an empty body, plain text or JSON, or a whole
   * HTML document where a fragment was asked for (a proxy's error page).
   */
  function usable(detail) {
    const text = detail.xhr.responseText ?? '';
    if (text.trim() === '' || !/text\/html/i.test(detail.xhr.getResponseHeader('Content-Type') ?? '')) return false;
    if (detail.boosted) return new DOMParser().parseFromString(text, 'text/html').querySelector('.error-page') !== null;
    return !/<!doctype|<html[\s>]|<body[\s>]/i.test(text);
  }

  /** SPEC D6: a new result replaces the old one: a refusal takes away the "Saved." of the save before it. */
  function dropOldResults() {
    document.querySelectorAll('main p.notice[role="status"]').forEach((el) => {
      if (el.textContent.trim() === 'Saved.') el.remove();
    });
  }

  // A failed request shows the server's error where the form asks, instead of being dropped.
  document.addEventListener('htmx:beforeSwap', (e) => {
    const { xhr, requestConfig } = e.detail;
    if (xhr.status < 400) return;
    dropOldResults();
    // Suggestions that failed are simply not shown: the field still takes a typed address.
    if (isPeopleSearch(requestConfig?.elt)) {
      e.detail.shouldSwap = false;
      closeList(requestConfig.elt);
      return;
    }
    const source = sourceOf(e.detail, e.target);
    if (!usable(e.detail)) {
      e.detail.shouldSwap = false;
      say(source, unusableWords(e.detail, source));
      return;
    }
    const where = errorTarget(requestConfig?.elt ?? e.target);
    if (!where?.target) {
      // A form without an error element: our error goes in the note at its end.
      if (source?.tagName === 'FORM') {
        e.detail.shouldSwap = true;
        e.detail.isError = false;
        e.detail.target = wordsPlace(source);
        e.detail.swapOverride = 'innerHTML';
        if (e.detail.boosted) e.detail.selectOverride = '.error-page > :not(h1)';
        e.detail.target.dataset.words = 'true';
        return;
      }
      // A boosted link that failed shows the error page, as it would without JavaScript.
      if (e.detail.boosted) {
        e.detail.shouldSwap = true;
        e.detail.isError = false;
      }
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
    if (isPeopleSearch(e.detail?.requestConfig?.elt ?? e.detail?.elt)) return;
    const source = sourceOf(e.detail, e.target);
    say(
      source,
      writes(e.detail)
        ? `Could not reach the server (the connection failed), so this may not have been saved.${kept(source)} Try again when the connection is back.`
        : 'Could not reach the server (the connection failed). Try again when the connection is back.',
    );
  });

  document.addEventListener('htmx:timeout', (e) => {
    if (isPeopleSearch(e.detail?.requestConfig?.elt ?? e.detail?.elt)) return;
    const source = sourceOf(e.detail, e.target);
    say(source, `The server took too long to answer, so this may not have been saved.${kept(source)} Try again.`);
  });

  // A value the browser refuses before anything is sent (a number out of range, a required field
  // left empty): htmx sends nothing, so the form says why under the field, and the value stays.
  document.addEventListener('htmx:validation:failed', (e) => {
    const where = errorTarget(e.target);
    if (!where?.target) return;
    const field = e.target;
    where.target.textContent = refusedWords(field);
    where.target.classList.add('has-error');
    // Said once, next to the field: the field is described by the box it is said in.
    if (where.target.id && field.setAttribute) {
      field.setAttribute('aria-invalid', 'true');
      field.dataset.fieldInvalid = where.target.id;
      const ids = (field.getAttribute('aria-describedby') ?? '').split(' ').filter(Boolean);
      if (!ids.includes(where.target.id)) field.setAttribute('aria-describedby', [...ids, where.target.id].join(' '));
    }
  });

  // A form sent with Enter or its button: the browser checks it before any htmx event, and would say
  // what it refuses in its own bubble and words. Ours instead: the first refused field, in the
  // form's own error place, once; the field is marked and keeps focus.
  document.addEventListener(
    'invalid',
    (e) => {
      const field = e.target;
      const where = errorTarget(field);
      if (!where?.target) return;
      e.preventDefault();
      const first = [...(field.form?.elements ?? [field])].find((el) => el.validity && !el.validity.valid);
      if (first !== field) return;
      dropOldResults();
      where.target.textContent = refusedWords(field);
      where.target.classList.add('has-error');
      field.setAttribute('aria-invalid', 'true');
      field.dataset.fieldInvalid = where.target.id;
      const ids = (field.getAttribute('aria-describedby') ?? '').split(' ').filter(Boolean);
      if (where.target.id && !ids.includes(where.target.id))
        field.setAttribute('aria-describedby', [...ids, where.target.id].join(' '));
      field.focus();
    },
    true,
  );

  /** SPEC D6: what the browser refused, in our words with the field's label, not the browser's. */
  function refusedWords(field) {
    const label =
      (field.labels?.[0]?.textContent ?? field.getAttribute('aria-label') ?? field.name ?? 'This field')
        .replace(/\s+/g, ' ')
        .trim() || 'This field';
    const v = field.validity ?? {};
    const min = field.getAttribute?.('min');
    const max = field.getAttribute?.('max');
    if (v.valueMissing) return `${label} must not be empty`;
    if ((v.rangeUnderflow || v.rangeOverflow) && min !== null && max !== null)
      return `${label} must be between ${min} and ${max}`;
    if (v.rangeUnderflow) return `${label} must be at least ${min}`;
    if (v.rangeOverflow) return `${label} must be at most ${max}`;
    if (v.stepMismatch || v.badInput)
      return field.type === 'number' && !field.getAttribute('step')
        ? `${label} must be a whole number`
        : `${label} must be a number`;
    if (v.tooLong) return `${label} must be at most ${field.maxLength} characters long`;
    if (v.typeMismatch && field.type === 'email') return `${label} must be an e-mail address`;
    return `${label} is not an accepted value`;
  }

  // Typing again clears the error shown for that form.
  document.addEventListener('input', (e) => {
    const where = errorTarget(e.target);
    if (where?.target && where.target.id !== 'new-ticket-body') {
      where.target.textContent = '';
      where.target.classList.remove('has-error');
    }
    unsay(e.target.closest?.('form') ?? null);
  });

  // A sent reply empties its text box (keeping the reply/note choice); a failed one keeps every character.
  document.addEventListener('htmx:afterRequest', (e) => {
    const form = e.detail.elt;
    // (`successful` alone is not enough: the error handling above swaps 4xx/5xx answers as non-errors.)
    if (!e.detail.successful || !(e.detail.xhr?.status < 400)) return;
    unsay(sourceOf(e.detail, form));
    if (form?.matches?.('form[data-reset-on-success]'))
      form.querySelectorAll('textarea, input[type=file]').forEach((t) => {
        t.value = '';
      });
  });

  // Applied as soon as the new list is in (afterSwap, before the settle delay and the next paint:
  // no flash of the server's widths) and again once settled.
  const keepWidths = (e) => {
    // A boosted link or form is a navigation to another page: its widths are the server's.
    if (e.detail?.boosted) for (const name of Object.keys(dragged)) delete dragged[name];
    applyDragged();
  };
  document.addEventListener('htmx:afterSwap', keepWidths);
  document.addEventListener('htmx:afterSettle', keepWidths);
  // --- Field errors ---
  // A refused form's error box lists what was wrong per field (`data-field` on each line, from
  // the server's error view): each message is also said under its own field, which is marked
  // invalid and described by it. What was typed stays; the next answer (or typing there) clears it.
  function clearFieldErrors(form) {
    form.querySelectorAll('.field-error[data-field-error]').forEach((el) => {
      el.remove();
    });
    form.querySelectorAll('[aria-invalid="true"][data-field-invalid]').forEach((el) => {
      const box = el.dataset.fieldInvalid;
      el.removeAttribute('aria-invalid');
      el.removeAttribute('data-field-invalid');
      const ids = (el.getAttribute('aria-describedby') ?? '')
        .split(' ')
        .filter((id) => id && !id.startsWith('fe-') && id !== box);
      if (ids.length) el.setAttribute('aria-describedby', ids.join(' '));
      else el.removeAttribute('aria-describedby');
    });
  }
  /** The fields a person types or picks a value in (not choices between kinds, files, buttons). */
  const valueFields = (form) =>
    [...form.elements].filter(
      (el) =>
        el.name &&
        !['hidden', 'submit', 'button', 'radio', 'checkbox', 'file'].includes(el.type) &&
        el.tagName !== 'BUTTON',
    );
  // SPEC D6: each refused field's message is said once, next to the field. A form whose error box
  // sits with its one value field (a ticket property) keeps the message there and the field is
  // described by it; so does a form that asks for it (`data-errors-in-box`: the reply box, whose
  // minutes worked field sits beside its message, SPEC D4); otherwise the message moves out of
  // the box to just after its field.
  document.addEventListener('htmx:afterSwap', (e) => {
    const box = e.detail?.target;
    const owner = box?.id ? document.querySelector(`form[data-error-target="#${CSS.escape(box.id)}"]`) : null;
    if (!owner) return;
    clearFieldErrors(owner);
    const single = owner.contains(box) && (valueFields(owner).length <= 1 || owner.hasAttribute('data-errors-in-box'));
    const emptied = new Set();
    box.querySelectorAll('[data-field]').forEach((line) => {
      const name = line.dataset.field;
      const field = [...owner.elements].find((el) => el.name === name && el.type !== 'hidden');
      if (!field) return;
      field.setAttribute('aria-invalid', 'true');
      if (single) {
        field.dataset.fieldInvalid = box.id;
        field.setAttribute('aria-describedby', `${field.getAttribute('aria-describedby') ?? ''} ${box.id}`.trim());
        return;
      }
      const note = document.createElement('span');
      note.className = 'field-error has-error';
      note.dataset.fieldError = '';
      note.id = `fe-${owner.id}-${name.replace(/\W/g, '-')}`;
      note.textContent = line.dataset.message || line.textContent;
      (field.closest('label') ?? field).insertAdjacentElement('afterend', note); // after the label: its name stays the field's name
      field.dataset.fieldInvalid = '';
      field.setAttribute('aria-describedby', `${field.getAttribute('aria-describedby') ?? ''} ${note.id}`.trim());
      if (line.parentElement) emptied.add(line.parentElement);
      line.remove();
    });
    // What is left of the error once every message went to its field: nothing to say twice.
    for (const el of emptied) {
      const wrapper = el.closest('.inline-error') ?? el;
      if (wrapper !== box && box.contains(wrapper) && wrapper.textContent.trim() === '') wrapper.remove();
    }
    if (box.textContent.trim() === '') box.classList.remove('has-error');
  });
  document.addEventListener('htmx:afterRequest', (e) => {
    const form = e.detail?.elt?.closest?.('form');
    if (form && e.detail.successful && e.detail.xhr?.status < 400) clearFieldErrors(form);
  });
  document.addEventListener('input', (e) => {
    const field = e.target;
    if (field?.dataset?.fieldInvalid === undefined) return;
    document.getElementById(`fe-${field.form?.id}-${field.name.replace(/\W/g, '-')}`)?.remove();
    field.removeAttribute('aria-invalid');
    const box = field.dataset.fieldInvalid;
    const ids = (field.getAttribute('aria-describedby') ?? '').split(' ').filter((id) => id && id !== box);
    if (ids.length) field.setAttribute('aria-describedby', ids.join(' '));
    else field.removeAttribute('aria-describedby');
    delete field.dataset.fieldInvalid;
  });
  // --- end Field errors ---

  document.addEventListener('DOMContentLoaded', fitTable);
  if (document.readyState !== 'loading') fitTable();
})();
