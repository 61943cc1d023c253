// --- Reply box: attachments and canned responses (SPEC C4) -----------------------------------
// Files: the picker, files dropped on the reply box and files pasted into its text all end in
// the one <input type=file name=attachments> (through a DataTransfer), listed under it with a
// remove button each; htmx sends them as multipart. Canned responses: a name typed or picked in
// the datalist field is fetched rendered for this ticket (GET /responses/:id/render) and
// inserted at the cursor; a status it sets goes into the hidden set_status, said in words with
// a way to keep the status. Without JavaScript: the plain file input, no picker.
(() => {
  'use strict';
  const BOX = 'form[data-reply-box]';
  const fileInputOf = (form) => form?.querySelector('input[type=file][name=attachments]');
  const sizeText = (n) =>
    n < 1024 ? `${n} B` : n < 1024 * 1024 ? `${(n / 1024).toFixed(1)} KB` : `${(n / 1024 / 1024).toFixed(1)} MB`;

  function showFiles(form) {
    const input = fileInputOf(form);
    const list = form?.querySelector('.reply-file-list');
    if (!input || !list) return;
    list.replaceChildren(
      ...[...input.files].map((file, i) => {
        const li = document.createElement('li');
        const name = document.createElement('span');
        name.textContent = `${file.name} (${sizeText(file.size)})`;
        const remove = document.createElement('button');
        remove.type = 'button';
        remove.dataset.removeFile = String(i);
        remove.textContent = 'Remove';
        remove.setAttribute('aria-label', `Remove ${file.name}`);
        li.append(name, ' ', remove);
        return li;
      }),
    );
  }

  /** Puts `files` (after those already chosen, or instead of the one at `drop`) into the form's file input. */
  function setFiles(form, add, drop = -1) {
    const input = fileInputOf(form);
    if (!input) return;
    const dt = new DataTransfer();
    [...input.files].forEach((f, i) => {
      if (i !== drop) dt.items.add(f);
    });
    for (const f of add) dt.items.add(f);
    input.files = dt.files;
    showFiles(form);
  }

  let pasted = 0;
  /** A pasted image arrives as "image.png" each time: named apart so the history tells them apart. */
  function named(file) {
    if (!/^image\.\w+$/.test(file.name)) return file;
    const ext = file.name.split('.').pop();
    return new File([file], `pasted-${new Date().toISOString().slice(0, 10)}-${++pasted}.${ext}`, {
      type: file.type,
      lastModified: file.lastModified,
    });
  }

  document.addEventListener('change', (e) => {
    if (e.target.matches?.(`${BOX} input[type=file][name=attachments]`)) showFiles(e.target.form);
  });
  document.addEventListener('click', (e) => {
    const remove = e.target.closest?.(`${BOX} [data-remove-file]`);
    if (!remove) return;
    const form = remove.closest('form');
    const at = Number(remove.dataset.removeFile);
    setFiles(form, [], at);
    // Focus stays in the list (the next file's button, else the last one), else on the picker.
    const left = fileInputOf(form).files.length;
    (left > 0 ? form.querySelector(`[data-remove-file="${Math.min(at, left - 1)}"]`) : fileInputOf(form))?.focus();
  });

  const carriesFiles = (e) => [...(e.dataTransfer?.types ?? [])].includes('Files');
  document.addEventListener('dragover', (e) => {
    const form = e.target.closest?.(BOX);
    if (!form || !carriesFiles(e)) return;
    e.preventDefault(); // allows the drop
    e.dataTransfer.dropEffect = 'copy';
    form.classList.add('dragging');
  });
  document.addEventListener('dragleave', (e) => {
    const form = e.target.closest?.(BOX);
    if (form && !form.contains(e.relatedTarget)) form.classList.remove('dragging');
  });
  document.addEventListener('drop', (e) => {
    const form = e.target.closest?.(BOX);
    if (!form || !e.dataTransfer?.files?.length) return;
    e.preventDefault(); // the browser would otherwise open the file
    form.classList.remove('dragging');
    setFiles(form, [...e.dataTransfer.files]);
  });
  document.addEventListener('paste', (e) => {
    const form = e.target.closest?.(BOX);
    const files = [...(e.clipboardData?.files ?? [])];
    if (!form || files.length === 0) return;
    // Text copied along with a picture (from a web page) is still pasted as text.
    if (!(e.clipboardData.types ?? []).includes('text/plain')) e.preventDefault();
    setFiles(form, files.map(named));
  });

  // ---- Canned responses ----
  function statusNote(form, status) {
    const hidden = form.querySelector('input[name=set_status]');
    const note = form.querySelector('#reply-status-note');
    if (!hidden || !note) return;
    hidden.value = status || '';
    note.hidden = !status;
    note.querySelector('span').textContent = status ? `Will set status to ${status}.` : '';
  }

  function optionFor(input) {
    const typed = input.value.trim().toLowerCase();
    const options = [...(document.getElementById(input.getAttribute('list'))?.options ?? [])];
    return typed === ''
      ? null
      : (options.find((o) => o.value.toLowerCase() === typed) ??
          (options.filter((o) => o.value.toLowerCase().startsWith(typed)).length === 1
            ? options.find((o) => o.value.toLowerCase().startsWith(typed))
            : null));
  }

  function fail(form, text) {
    const place = form.querySelector('#reply-error');
    if (!place) return;
    place.textContent = text;
    place.classList.add('has-error');
  }

  async function insertCanned(input) {
    const form = input.closest('form');
    const option = optionFor(input);
    if (!option) {
      fail(
        form,
        input.value.trim()
          ? `No canned response is named “${input.value.trim()}”.`
          : 'Type the name of a canned response.',
      );
      return;
    }
    let res;
    let answer;
    try {
      res = await fetch(`/responses/${option.dataset.id}/render?ticket_id=${input.dataset.ticketId}`, {
        headers: { accept: 'application/json' },
        credentials: 'same-origin',
      });
      answer = await res.json();
    } catch {
      fail(form, 'Could not load the canned response (the connection failed). Try again.');
      return;
    }
    if (!res.ok) {
      fail(form, `Could not insert “${option.value}”: ${answer?.error?.message ?? res.status}`);
      return;
    }
    const area = form.querySelector('textarea[name=body]');
    const start = area.selectionStart ?? area.value.length;
    const end = area.selectionEnd ?? area.value.length;
    area.focus();
    area.setRangeText(answer.body, start, end, 'end');
    area.dispatchEvent(new Event('input', { bubbles: true })); // clears an earlier error
    if (answer.set_status) statusNote(form, answer.set_status);
    input.value = '';
  }

  document.addEventListener('keydown', (e) => {
    if (e.key !== 'Enter' || !e.target.matches?.('[data-canned-picker]')) return;
    e.preventDefault(); // inserts; does not send the reply
    if (e.target.value.trim() !== '') insertCanned(e.target); // (an option picked from the list was inserted already)
  });
  document.addEventListener('input', (e) => {
    // Picking an option of the list (mouse or arrows + Enter in the browser's list) inserts it at once.
    if (
      e.target.matches?.('[data-canned-picker]') &&
      (e.inputType === 'insertReplacementText' || e.inputType === undefined)
    ) {
      const option = optionFor(e.target);
      if (option && option.value === e.target.value) insertCanned(e.target);
    }
  });
  document.addEventListener('click', (e) => {
    const button = e.target.closest?.('[data-canned-insert]');
    if (button) insertCanned(button.closest('form').querySelector('[data-canned-picker]'));
    const clear = e.target.closest?.('[data-clear-status]');
    if (clear) {
      const form = clear.closest('form');
      statusNote(form, '');
      form.querySelector('textarea[name=body]')?.focus();
    }
  });

  // A sent reply: the chosen files and the status to set are gone with its text.
  document.addEventListener('htmx:afterRequest', (e) => {
    const form = e.detail.elt;
    if (!form?.matches?.(BOX) || !e.detail.successful || !(e.detail.xhr?.status < 400)) return;
    const input = fileInputOf(form);
    if (input) input.value = '';
    showFiles(form);
    statusNote(form, '');
  });
})();
