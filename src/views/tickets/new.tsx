import type { CustomFieldJson } from '../../domain/customFields.js';
import type { ErrorDetail } from '../../domain/errors.js';
import type { Lookups } from '../../domain/lookups.js';
import { PersonField } from './people.js';

export interface NewTicketProps {
  lookups: Lookups;
  /** The custom fields that apply to the chosen queue. */
  fields: CustomFieldJson[];
  values: Record<string, unknown>;
  errors: ErrorDetail[];
  /** Staff name the requesters and Cc; a customer opening a ticket is its requester. */
  staff?: boolean;
  /** The plain /tickets/new page: its title is the page's one h1 (in the dialog an h2 under the list's h1). */
  page?: boolean;
}

/** The errors of a people field: the field itself or any of its entries (`cc.1`). */
const errorsOf = (errors: ErrorDetail[], field: string) =>
  errors.filter((e) => e.path === field || e.path.startsWith(`${field}.`));
/** A people field as typed: the form sends it as one text, JSON as a list. */
const typed = (v: unknown): string =>
  Array.isArray(v)
    ? v.filter((x) => typeof x === 'string' || typeof x === 'number').join(', ')
    : typeof v === 'string'
      ? v
      : '';

/** A typed value to show again; what no input could have sent (`subject.url=…` nests an object) shows as empty. */
const val = (v: Record<string, unknown>, k: string): string => {
  const x = k.startsWith('custom_fields.')
    ? (v.custom_fields as Record<string, unknown> | undefined)?.[k.slice(14)]
    : v[k];
  if (typeof x === 'string' || typeof x === 'number' || typeof x === 'boolean') return String(x);
  return Array.isArray(x) ? val({ [k]: x[x.length - 1] }, k) : '';
};

function FieldError({ errors, path }: { errors: ErrorDetail[]; path: string }) {
  const e = errors.find((d) => d.path === path);
  return e ? (
    <span class="field-error" id={`new-err-${path.replace('.', '-')}`} role="alert">
      {e.message}
    </span>
  ) : null;
}

/** The new-ticket form; the dialog and the plain /tickets/new page show the same one. */
export function NewTicketForm({
  lookups: l,
  fields,
  values,
  errors,
  staff: isStaffForm = true,
  page = false,
}: NewTicketProps) {
  const queueId =
    val(values, 'queue_id') || String(l.queues.find((q) => q.name === 'General')?.id ?? l.queues[0]?.id ?? '');
  const staff = l.users.filter((u) => u.role !== 'requester' && !u.disabled);
  const other = errors.filter(
    (e) =>
      !['queue_id', 'subject', 'description', 'owner_id', 'team_id'].includes(e.path) &&
      !e.path.startsWith('custom_fields.') &&
      !(isStaffForm && (errorsOf([e], 'requesters').length > 0 || errorsOf([e], 'cc').length > 0)),
  );
  return (
    <form
      id="new-ticket-form"
      class="new-ticket"
      method="post"
      action="/tickets"
      hx-post="/tickets"
      hx-target="#new-ticket-body"
      data-error-target="#new-ticket-body"
      data-error-swap="innerHTML"
      novalidate
    >
      {page ? <h1 id="new-ticket-title">New ticket</h1> : <h2 id="new-ticket-title">New ticket</h2>}
      <label>
        Queue
        <select
          name="queue_id"
          hx-get="/tickets/new"
          hx-trigger="change"
          hx-target="#new-ticket-body"
          hx-include="#new-ticket-form"
          hx-push-url="false"
        >
          {l.queues.map((q) => (
            <option value={String(q.id)} selected={String(q.id) === queueId}>
              {q.name}
            </option>
          ))}
        </select>
        <FieldError errors={errors} path="queue_id" />
      </label>
      <label>
        Subject
        <input
          name="subject"
          value={val(values, 'subject')}
          required
          maxlength={500}
          aria-invalid={errors.some((e) => e.path === 'subject') ? 'true' : undefined}
        />
        <FieldError errors={errors} path="subject" />
      </label>
      {isStaffForm && (
        <div class="row people-row">
          <PersonField
            id="new-requesters"
            name="requesters"
            label="Requester"
            multiple
            value={typed(values.requesters)}
            errors={errorsOf(errors, 'requesters')}
            placeholder="Name or e-mail address"
            hint="Leave empty and you are the requester. Pick someone or type a new address; separate several with commas."
          />
          <PersonField
            id="new-cc"
            name="cc"
            label="Cc"
            multiple
            value={typed(values.cc)}
            errors={errorsOf(errors, 'cc')}
            placeholder="Name or e-mail address"
            hint="They get the public replies too. Separate several with commas."
          />
        </div>
      )}
      <label>
        Description
        <textarea name="description" rows={5}>
          {val(values, 'description')}
        </textarea>
        <FieldError errors={errors} path="description" />
      </label>
      <div class="row">
        <label>
          Owner
          <select name="owner_id">
            <option value="">Unassigned</option>
            {staff.map((u) => (
              <option value={String(u.id)} selected={String(u.id) === val(values, 'owner_id')}>
                {u.name || u.email}
              </option>
            ))}
          </select>
          <FieldError errors={errors} path="owner_id" />
        </label>
        <label>
          Team
          <select name="team_id">
            <option value="default">The queue's team</option>
            <option value="" selected={values.team_id === '' || values.team_id === null}>
              No team
            </option>
            {l.teams.map((t) => (
              <option value={String(t.id)} selected={String(t.id) === val(values, 'team_id')}>
                {t.name}
              </option>
            ))}
          </select>
          <FieldError errors={errors} path="team_id" />
        </label>
      </div>
      {fields.map((f) => {
        const path = `custom_fields.${f.key}`;
        const hintId = `hint-${f.key}`;
        return (
          // biome-ignore lint/a11y/noLabelWithoutControl: the control is the select or input inside, chosen by the field's type
          <label class="cf">
            {f.name}
            {f.required ? ' *' : ''}
            {f.type === 'select' ? (
              <select name={path} aria-describedby={hintId}>
                <option value="">—</option>
                {f.options.map((o) => (
                  <option value={o} selected={o === val(values, path)}>
                    {o}
                  </option>
                ))}
              </select>
            ) : (
              <input
                name={path}
                value={val(values, path)}
                aria-describedby={hintId}
                aria-invalid={errors.some((e) => e.path === path) ? 'true' : undefined}
                type={f.type === 'number' ? 'number' : f.type === 'date' ? 'date' : 'text'}
                step={f.type === 'number' ? 'any' : undefined}
              />
            )}
            {f.pattern && (
              <small class="hint" id={hintId}>
                Format: <code>{f.pattern}</code>
              </small>
            )}
            <FieldError errors={errors} path={path} />
          </label>
        );
      })}
      {other.length > 0 && (
        <ul class="error" role="alert">
          {other.map((e) => (
            <li>
              {e.path}: {e.message}
            </li>
          ))}
        </ul>
      )}
      <div class="actions">
        <button type="submit" class="primary">
          Create ticket
        </button>
        <button type="button" data-close-dialog>
          Cancel
        </button>
      </div>
    </form>
  );
}
