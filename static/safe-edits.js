// SPEC D6 "Safe edits" (docs/decisions/052): the subject is edited through an explicit control,
// and a Take from a colleague asks first. Without JavaScript the same controls are plain links and
// forms (`?edit=subject`, the question as a page).
(() => {
  'use strict';
  // --- Subject edit ---
  const parts = () => ({
    text: document.getElementById('subject-text'),
    form: document.getElementById('subject-form'),
    edit: document.querySelector('[data-subject-edit]'),
  });

  function openSubject(focus = true) {
    const { text, form, edit } = parts();
    if (!form) return;
    form.hidden = false;
    if (text) text.hidden = true;
    if (edit) {
      edit.hidden = true;
      edit.setAttribute('aria-expanded', 'true');
    }
    if (!focus) return;
    const input = form.querySelector('input[name="subject"]');
    input?.focus();
    input?.select();
  }

  /** Cancel: the subject as it was, the form closed, focus back on "Edit subject". */
  function closeSubject() {
    const { text, form, edit } = parts();
    if (!form) return;
    const input = form.querySelector('input[name="subject"]');
    if (input) {
      input.value = input.dataset.original ?? input.defaultValue;
      input.removeAttribute('aria-invalid');
    }
    const err = form.querySelector('#err-subject');
    if (err) {
      err.textContent = '';
      err.classList.remove('has-error');
    }
    form.hidden = true;
    if (text) text.hidden = false;
    if (edit) {
      edit.hidden = false;
      edit.setAttribute('aria-expanded', 'false');
      edit.focus();
    }
    // The address no longer asks for the form (it did when opened without JavaScript first).
    if (new URLSearchParams(location.search).get('edit') === 'subject') {
      const url = new URL(location.href);
      url.searchParams.delete('edit');
      history.replaceState(history.state, '', url);
    }
  }

  document.addEventListener('click', (e) => {
    const t = e.target;
    if (t?.closest?.('[data-subject-edit]')) {
      e.preventDefault();
      openSubject();
    } else if (t?.closest?.('[data-subject-cancel]')) {
      e.preventDefault();
      closeSubject();
    } else if (t?.closest?.('[data-take-cancel]')) {
      // The Take question goes; nothing was changed. Focus goes back to the Take button.
      const place = t.closest('.field-error');
      // An owner choice that asked goes back to the owner the ticket has.
      t.closest('form.prop')?.reset();
      if (place) {
        place.textContent = '';
        place.classList.remove('has-error');
      }
      document.querySelector('.quick-actions button[type="submit"]')?.focus();
    }
  });
  // A link "clicked" with the keyboard (Space on role=button) opens it too.
  document.addEventListener('keydown', (e) => {
    const t = e.target;
    if (e.key === ' ' && t?.matches?.('[data-subject-edit], [data-subject-cancel]')) {
      e.preventDefault();
      t.click();
    } else if (e.key === 'Escape' && t?.closest?.('[data-subject-form]')) {
      e.preventDefault();
      e.stopPropagation();
      closeSubject();
    }
  });
  // --- end Subject edit ---

  // The head is swapped whole (after a change, or a live update once the agent left it): focus that
  // was in it stays on its "Edit subject" control instead of falling to the page. A subject being
  // edited survives a live update of the head (another agent's change): the form stays open with
  // what was typed, the caret where it was. Only its own Save closes it.
  let headHadFocus = false;
  let editing = null;
  let saving = false;
  document.addEventListener('htmx:beforeRequest', (e) => {
    if (e.detail?.elt?.matches?.('[data-subject-form]')) saving = true;
  });
  document.addEventListener('htmx:afterRequest', (e) => {
    if (e.detail?.elt?.matches?.('[data-subject-form]')) saving = false;
  });
  document.addEventListener('htmx:oobBeforeSwap', (e) => {
    if (e.detail?.target?.id !== 'ticket-head') return;
    headHadFocus = e.detail.target.contains(document.activeElement);
    const { form } = parts();
    const input = form?.querySelector('input[name="subject"]');
    editing =
      form && !form.hidden && input && !saving
        ? {
            value: input.value,
            focused: document.activeElement === input,
            start: input.selectionStart,
            end: input.selectionEnd,
          }
        : null;
  });
  document.addEventListener('htmx:oobAfterSwap', (e) => {
    if (e.detail?.target?.id !== 'ticket-head') return;
    const was = editing;
    editing = null;
    if (was) {
      openSubject(false);
      const input = parts().form?.querySelector('input[name="subject"]');
      if (input) {
        input.value = was.value;
        if (was.focused) {
          input.focus();
          input.setSelectionRange(was.start, was.end);
        }
      }
      return;
    }
    if (!headHadFocus) return;
    headHadFocus = false;
    const edit = document.querySelector('#ticket-head [data-subject-edit]:not([hidden])');
    if (edit && (document.activeElement === document.body || !document.activeElement)) edit.focus();
  });

  // A question swapped in (Take from …?, Delete N tickets?) brings its answer into focus: the
  // browser's own autofocus does not run for content added to a page that has focus already.
  document.addEventListener('htmx:afterSettle', (e) => {
    const target = e.detail?.target;
    const first = target?.querySelector?.('.take-confirm [autofocus], .bulk-confirm [autofocus]');
    if (first && !first.hidden) first.focus();
  });
})();
