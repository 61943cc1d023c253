import type { SettingsJson } from '../domain/settings.js';
import { AdminForm, Area, Check, Text } from './admin/common.js';

const SIGNATURE_HINT =
  'Closes every public reply you write, after a "-- " line, followed by the queue\'s own signature. ' +
  'Liquid: {{ user.name }}, {{ user.email }}, {{ queue.name }}, {{ queue.mail_alias }}, {{ ticket.id }}, {{ ticket.subject }}.';

/** The signed-in user's own settings: profile and notifications in one form, the password in another. */
export function SettingsPage({
  settings: s,
  zones,
  saved,
}: {
  settings: SettingsJson;
  zones: string[];
  saved?: boolean;
}) {
  const staff = s.role !== 'requester';
  return (
    <section class="settings">
      <header class="page-head">
        <h1>Your settings</h1>
      </header>
      {saved && (
        <p class="notice" role="status">
          Saved.
        </p>
      )}
      <div class="admin-grid">
        <div class="card">
          <AdminForm action="/settings" method="PATCH" id="settings">
            <Text
              name="name"
              label="Name"
              value={s.name}
              hint={`Shown to customers on your replies. You sign in as ${s.email}.`}
            />
            <label>
              Time zone
              <input name="timezone" list="time-zones" value={s.timezone} required autocomplete="off" />
              <small class="hint">Times on these pages are shown in it, e.g. Europe/Berlin or America/New_York.</small>
            </label>
            <datalist id="time-zones">
              {zones.map((z) => (
                <option value={z} />
              ))}
            </datalist>
            {staff && <Area name="signature" label="Signature" value={s.signature} rows={4} />}
            {staff && <small class="hint">{SIGNATURE_HINT}</small>}
            {staff && (
              <fieldset class="checks">
                <legend>E-mail me about</legend>
                <Check
                  name="notify_new_tickets"
                  label="New tickets in my teams' queues"
                  checked={s.notify_new_tickets}
                />
                <Check name="notify_replies" label="Replies on tickets I own" checked={s.notify_replies} />
                <Check name="notify_notes" label="Internal notes on tickets I own or watch" checked={s.notify_notes} />
              </fieldset>
            )}
            <button type="submit" class="primary">
              Save
            </button>
          </AdminForm>
        </div>
        <div class="card">
          <h2>Password</h2>
          <AdminForm action="/settings" method="PATCH" id="settings-password">
            <Text name="current_password" label="Current password" type="password" required />
            <Text
              name="password"
              label="New password"
              type="password"
              required
              hint="At least 12 characters. Signs you out everywhere else."
            />
            <Text name="password_confirm" label="New password again" type="password" required />
            <button type="submit">Change password</button>
          </AdminForm>
        </div>
      </div>
    </section>
  );
}
