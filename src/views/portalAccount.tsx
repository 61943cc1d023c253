import type { PortalQueueJson } from '../domain/portalRequests.js';
import type { SettingsJson } from '../domain/settings.js';

// The signed-in customer's own pages in the portal (SPEC D6, docs/decisions/050): their
// settings (name, password, time zone) and a new request. Plain forms that work without
// JavaScript; a refused field is said once, next to it.

export interface FieldError {
  path: string;
  message: string;
}

const errorOf = (errors: FieldError[] | undefined, path: string) => errors?.find((e) => e.path === path)?.message;

/** The words of a refusal that names no field of the form, at its top. */
function FormErrors({ errors, fields }: { errors?: FieldError[]; fields: string[] }) {
  const rest = (errors ?? []).filter((e) => !fields.includes(e.path));
  if (rest.length === 0) return null;
  return (
    <div class="error" role="alert">
      {rest.map((e) => (
        <p>{e.message}</p>
      ))}
    </div>
  );
}

/** One labelled input with its error, if any, next to it (and tied to it for screen readers). */
function Field({
  id,
  name,
  label,
  type = 'text',
  value,
  hint,
  errors,
  required,
  autocomplete,
  list,
}: {
  id: string;
  name: string;
  label: string;
  type?: string;
  value?: string;
  hint?: string;
  errors?: FieldError[];
  required?: boolean;
  autocomplete?: string;
  list?: string;
}) {
  const error = errorOf(errors, name);
  const described = [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ');
  return (
    <div class="portal-field">
      <label for={id}>{label}</label>
      <input
        id={id}
        name={name}
        type={type}
        value={value ?? ''}
        required={required}
        autocomplete={autocomplete}
        list={list}
        aria-invalid={error ? 'true' : undefined}
        aria-describedby={described || undefined}
      />
      {hint && (
        <small class="hint" id={`${id}-hint`}>
          {hint}
        </small>
      )}
      {error && (
        <p class="field-error" id={`${id}-error`}>
          {error}
        </p>
      )}
    </div>
  );
}

export interface PortalSettingsProps {
  settings: SettingsJson;
  zones: string[];
  saved?: boolean;
  /** Which form the errors belong to. */
  form?: 'profile' | 'password';
  errors?: FieldError[];
  values?: Record<string, string>;
}

/** GET /portal/settings: name and time zone in one form, the password in another. */
export function PortalSettingsPage({ settings: s, zones, saved, form, errors, values }: PortalSettingsProps) {
  const profileErrors = form === 'profile' ? errors : undefined;
  const passwordErrors = form === 'password' ? errors : undefined;
  return (
    <section class="portal-settings">
      <h1>Your settings</h1>
      {saved && (
        <p class="notice" role="status">
          Saved.
        </p>
      )}
      <form method="post" action="/portal/settings" class="portal-form" id="portal-profile">
        <h2>About you</h2>
        <FormErrors errors={profileErrors} fields={['name', 'timezone']} />
        <Field
          id="settings-name"
          name="name"
          label="Name"
          value={values?.name ?? s.name}
          hint={`Shown on your messages. You sign in as ${s.email}.`}
          errors={profileErrors}
          autocomplete="name"
        />
        <Field
          id="settings-timezone"
          name="timezone"
          label="Time zone"
          value={values?.timezone ?? s.timezone}
          hint="Times on these pages are shown in it, e.g. Europe/Berlin or America/New_York."
          errors={profileErrors}
          required
          autocomplete="off"
          list="time-zones"
        />
        <datalist id="time-zones">
          {zones.map((z) => (
            <option value={z} />
          ))}
        </datalist>
        <button type="submit" class="primary">
          Save
        </button>
      </form>
      <form method="post" action="/portal/settings" class="portal-form" id="portal-password">
        <h2>Password</h2>
        <FormErrors errors={passwordErrors} fields={['current_password', 'password', 'password_confirm']} />
        <Field
          id="settings-current"
          name="current_password"
          label="Current password"
          type="password"
          errors={passwordErrors}
          required
          autocomplete="current-password"
        />
        <Field
          id="settings-password"
          name="password"
          label="New password"
          type="password"
          hint="At least 12 characters. Signs you out everywhere else."
          errors={passwordErrors}
          required
          autocomplete="new-password"
        />
        <Field
          id="settings-confirm"
          name="password_confirm"
          label="New password again"
          type="password"
          errors={passwordErrors}
          required
          autocomplete="new-password"
        />
        <button type="submit">Change password</button>
      </form>
    </section>
  );
}

const size = (n: number) => (n < 1024 * 1024 ? `${Math.ceil(n / 1024)} KB` : `${(n / 1024 / 1024).toFixed(1)} MB`);

export interface NewRequestProps {
  queues: PortalQueueJson[];
  byMail: string;
  maxBytes: number;
  maxFiles: number;
  errors?: FieldError[];
  values?: Record<string, string>;
}

/** GET /portal/new: subject, text and files; a choice of topic when several queues take requests. */
export function PortalNewRequestPage({ queues, byMail, maxBytes, maxFiles, errors, values }: NewRequestProps) {
  if (queues.length === 0)
    return (
      <section class="portal-new">
        <h1>New request</h1>
        <p>{byMail}</p>
        <p>
          <a href="/portal">Back to your requests</a>
        </p>
      </section>
    );
  const queueError = errorOf(errors, 'queue_id');
  const bodyError = errorOf(errors, 'body');
  const filesError = errorOf(errors, 'attachments');
  return (
    <section class="portal-new">
      <h1>New request</h1>
      <form
        method="post"
        action="/portal/requests"
        enctype="multipart/form-data"
        class="portal-form"
        id="portal-new-request"
      >
        <FormErrors errors={errors} fields={['queue_id', 'subject', 'body', 'attachments']} />
        {queues.length > 1 && (
          <div class="portal-field">
            <label for="new-queue">What is it about?</label>
            <select
              id="new-queue"
              name="queue_id"
              required
              aria-invalid={queueError ? 'true' : undefined}
              aria-describedby={queueError ? 'new-queue-error' : undefined}
            >
              <option value="">Choose…</option>
              {queues.map((q) => (
                <option value={String(q.id)} selected={values?.queue_id === String(q.id)}>
                  {q.name}
                </option>
              ))}
            </select>
            {queueError && (
              <p class="field-error" id="new-queue-error">
                {queueError}
              </p>
            )}
          </div>
        )}
        <Field
          id="new-subject"
          name="subject"
          label="Subject"
          value={values?.subject}
          hint="A few words about your request."
          errors={errors}
          required
        />
        <div class="portal-field">
          <label for="new-body">Your message</label>
          <textarea
            id="new-body"
            name="body"
            rows={8}
            aria-invalid={bodyError ? 'true' : undefined}
            aria-describedby={bodyError ? 'new-body-error' : undefined}
          >
            {values?.body ?? ''}
          </textarea>
          {bodyError && (
            <p class="field-error" id="new-body-error">
              {bodyError}
            </p>
          )}
        </div>
        <div class="portal-field">
          <label for="new-files">
            Attach files{' '}
            <span class="hint">
              (optional, up to {maxFiles} files and {size(maxBytes)} in all)
            </span>
          </label>
          <input
            id="new-files"
            type="file"
            name="attachments"
            multiple
            aria-invalid={filesError ? 'true' : undefined}
            aria-describedby={filesError ? 'new-files-error' : undefined}
          />
          {filesError && (
            <p class="field-error" id="new-files-error">
              {filesError}
            </p>
          )}
        </div>
        <button type="submit" class="primary">
          Send request
        </button>
      </form>
      <p class="hint portal-foot">We confirm your request by e-mail; you can reply to that e-mail as well.</p>
    </section>
  );
}
