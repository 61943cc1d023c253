import type { CustomFieldJson } from '../../domain/customFields.js';
import type { Lookups } from '../../domain/lookups.js';
import type { QueueJson } from '../../domain/queues.js';
import type { ScripJson } from '../../domain/scrips.js';
import type { TemplateJson } from '../../domain/templates.js';
import { queueName, teamName } from '../format.js';
import type { ScripPreview } from '../../domain/time/idlePreview.js';
import { ScripPreviewCard } from './scripPreview.js';
import { AdminForm, AdminFrame, Wide, Area, Check, Choice, Text } from './common.js';

const teamOptions = (l: Lookups): [string, string][] => [
  ['', 'No team'],
  ...l.teams.map((t): [string, string] => [String(t.id), t.name]),
];
const queueOptions = (l: Lookups, none: string): [string, string][] => [
  ['', none],
  ...l.queues.map((q): [string, string] => [String(q.id), q.name]),
];

export function QueuesPage({ queues, lookups: l }: { queues: QueueJson[]; lookups: Lookups }) {
  return (
    <AdminFrame current="/queues" title="Queues">
      <div class="admin-grid">
        <Wide label="Queues">
          <table class="plain">
            <thead>
              <tr>
                <th>Queue</th>
                <th>Mail alias</th>
                <th>Default team</th>
              </tr>
            </thead>
            <tbody>
              {queues.map((q) => (
                <tr>
                  <td>
                    <a href={`/queues/${q.id}`}>{q.name}</a>
                  </td>
                  <td>{q.mail_alias ?? '—'}</td>
                  <td>{teamName(l, q.team_id, '—')}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </Wide>
        <div class="card">
          <h2>New queue</h2>
          <QueueFields id="new-queue" action="/queues" l={l} />
        </div>
      </div>
    </AdminFrame>
  );
}

/** The people of a queue role as the form shows them: their addresses, comma-separated. */
const addresses = (l: Lookups, ids: number[] | undefined) =>
  (ids ?? []).map((id) => l.users.find((u) => u.id === id)?.email ?? String(id)).join(', ');

const QUEUE_SIGNATURE_HINT =
  "Liquid, added after the writer's own signature to every public reply staff write in this queue: " +
  '{{ queue.name }}, {{ queue.mail_alias }}, {{ user.name }}, {{ user.email }}, {{ ticket.id }}, {{ ticket.subject }}.';

/** SPEC D3: the lifecycles a queue may use (by id and name). */
type LifecycleChoice = { id: number; name: string };

function QueueFields({
  id,
  action,
  l,
  q,
  lifecycles = [],
}: {
  id: string;
  action: string;
  l: Lookups;
  q?: QueueJson;
  lifecycles?: LifecycleChoice[];
}) {
  return (
    <AdminForm action={action} method={q ? 'PATCH' : 'POST'} id={id}>
      <Text name="name" label="Name" value={q?.name} required />
      <Text name="description" label="Description" value={q?.description} />
      <Text
        name="mail_alias"
        label="Mail alias"
        type="email"
        value={q?.mail_alias}
        hint="Mail to this address opens tickets in this queue."
      />
      <Choice name="team_id" label="Default team for new tickets" value={q?.team_id} options={teamOptions(l)} />
      <Choice
        name="lifecycle_id"
        label="Lifecycle (its statuses and transitions)"
        value={q?.lifecycle_id ?? ''}
        options={[
          ['', 'Default (new, open, stalled, resolved, rejected, deleted)'],
          ...lifecycles.map((c): [string, string] => [String(c.id), c.name]),
        ]}
      />
      <Check
        name="keep_mail_cc"
        label="People in To/Cc of new mail become Cc of its ticket"
        checked={q?.keep_mail_cc ?? true}
      />
      <Check
        name="portal_create"
        label="Customers may open new requests in this queue from the portal"
        checked={q?.portal_create ?? false}
      />
      <Check
        name="csat_enabled"
        label="Ask requesters to rate the answer in the Resolved mail"
        checked={q?.csat_enabled ?? false}
      />
      <Text
        name="mail_cc_per_message"
        label="Most new Cc people from one message (1–10)"
        type="number"
        value={q?.mail_cc_per_message ?? 10}
        required
      />
      <Text
        name="mail_cc_per_ticket"
        label="Most Cc people a ticket gets from mail (1–20)"
        type="number"
        value={q?.mail_cc_per_ticket ?? 20}
        required
        hint="Past these, the people are listed on the ticket as not added, for staff to add with one click."
      />
      <Text
        name="cc"
        label="Cc (watch every ticket: get public replies)"
        value={addresses(l, q?.cc)}
        placeholder="ann@example.com, 7"
        hint="Addresses or user ids, comma-separated; unknown addresses become requester accounts."
      />
      <Text
        name="admin_cc"
        label="AdminCc (staff: new tickets, replies and internal notes)"
        value={addresses(l, q?.admin_cc)}
        placeholder="agent@example.com"
        hint="Agents or administrators, comma-separated."
      />
      {/* The hint stays outside the label: its variable names would make the field's accessible name. */}
      <Area name="signature" label="Queue signature" value={q?.signature} rows={3} />
      <small class="hint">{QUEUE_SIGNATURE_HINT}</small>
      <button type="submit" class="primary">
        {q ? 'Save' : 'Create queue'}
      </button>
    </AdminForm>
  );
}

export function QueuePage({
  queue: q,
  lookups: l,
  lifecycles,
}: {
  queue: QueueJson;
  lookups: Lookups;
  lifecycles?: LifecycleChoice[];
}) {
  return (
    <AdminFrame current="/queues" title={`Queue ${q.name}`}>
      <div class="admin-grid">
        <div class="card">
          <QueueFields id="edit-queue" action={`/queues/${q.id}`} l={l} q={q} lifecycles={lifecycles} />
        </div>
        <div class="card">
          {q.team_id === null && (q.admin_cc ?? []).length === 0 && (
            <p class="field-error" role="note">
              Nobody is told of new tickets in this queue until they are assigned: give it a team or an AdminCc.
            </p>
          )}
          <p>
            <a href={`/tickets?queue_id=${q.id}`}>Tickets in this queue →</a>
          </p>
          <AdminForm action={`/queues/${q.id}`} method="DELETE" id="delete-queue" confirm={`Delete queue ${q.name}?`}>
            <button type="submit" class="danger">
              Delete queue
            </button>
            <small class="hint">Only a queue without tickets can be deleted.</small>
          </AdminForm>
        </div>
      </div>
    </AdminFrame>
  );
}

function FieldForm({ id, action, l, f }: { id: string; action: string; l: Lookups; f?: CustomFieldJson }) {
  return (
    <AdminForm action={action} method={f ? 'PATCH' : 'POST'} id={id}>
      <Text
        name="key"
        label="Key"
        value={f?.key}
        required
        hint="Lower case: a-z, 0-9, _ (used in the API and in cf.<key> filters)."
      />
      <Text name="name" label="Name" value={f?.name} required />
      <Choice
        name="type"
        label="Type"
        value={f?.type ?? 'text'}
        options={[
          ['text', 'Text'],
          ['number', 'Number'],
          ['select', 'Select'],
          ['date', 'Date'],
        ]}
      />
      <Text name="options" label="Options (select)" value={f?.options.join(', ')} hint="Comma-separated." />
      <Text
        name="pattern"
        label="Pattern"
        value={f?.pattern}
        hint="A regular expression values must match, shown under the input, e.g. ^ORD-\d+$"
      />
      <Check name="required" label="Required" checked={f?.required} />
      <fieldset class="checks">
        <legend>Queues (none checked = all queues)</legend>
        <input type="hidden" name="queue_ids" value="" />
        {l.queues.map((q) => (
          <label class="checkbox">
            <input type="checkbox" name="queue_ids" value={String(q.id)} checked={f?.queue_ids.includes(q.id)} />{' '}
            {q.name}
          </label>
        ))}
      </fieldset>
      <button type="submit" class="primary">
        {f ? 'Save' : 'Create field'}
      </button>
    </AdminForm>
  );
}

export function CustomFieldsPage({ fields, lookups: l }: { fields: CustomFieldJson[]; lookups: Lookups }) {
  return (
    <AdminFrame current="/custom-fields" title="Custom fields">
      <div class="admin-grid">
        <Wide label="Custom fields">
          <table class="plain">
            <thead>
              <tr>
                <th>Name</th>
                <th>Key</th>
                <th>Type</th>
                <th>Pattern</th>
                <th>Required</th>
                <th>Queues</th>
              </tr>
            </thead>
            <tbody>
              {fields.length === 0 && (
                <tr>
                  <td colspan={6} class="empty">
                    No custom fields yet.
                  </td>
                </tr>
              )}
              {fields.map((f) => (
                <tr>
                  <td>
                    <a href={`/custom-fields/${f.id}`}>{f.name}</a>
                  </td>
                  <td>
                    <code>{f.key}</code>
                  </td>
                  <td>
                    {f.type}
                    {f.type === 'select' ? ` (${f.options.join(', ')})` : ''}
                  </td>
                  <td>{f.pattern ? <code>{f.pattern}</code> : '—'}</td>
                  <td>{f.required ? 'Yes' : 'No'}</td>
                  <td>{f.queue_ids.length ? f.queue_ids.map((id) => queueName(l, id)).join(', ') : 'All'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </Wide>
        <div class="card">
          <h2>New custom field</h2>
          <FieldForm id="new-field" action="/custom-fields" l={l} />
        </div>
      </div>
    </AdminFrame>
  );
}

export function CustomFieldPage({ field: f, lookups: l }: { field: CustomFieldJson; lookups: Lookups }) {
  return (
    <AdminFrame current="/custom-fields" title={`Custom field ${f.name}`}>
      <div class="admin-grid">
        <div class="card">
          <FieldForm id="edit-field" action={`/custom-fields/${f.id}`} l={l} f={f} />
        </div>
        <div class="card">
          <AdminForm
            action={`/custom-fields/${f.id}`}
            method="DELETE"
            id="delete-field"
            confirm={`Delete ${f.name} and every ticket's value of it?`}
          >
            <button type="submit" class="danger">
              Delete field
            </button>
          </AdminForm>
        </div>
      </div>
    </AdminFrame>
  );
}

const VARIABLES =
  'ticket.id, ticket.subject, ticket.description, ticket.status, ticket.priority, ticket.url, ticket.csat_url (a rating link in a requester’s mail about a resolve, queues that ask for ratings; else empty), ticket.custom_fields.<key>, ticket.queue.name, ticket.owner.name, ticket.owner.email, ticket.team.name, ticket.requester.name, ticket.requester.email, transaction.type, transaction.body, transaction.creator.name, scrip.key';

export function TemplatesPage({ templates, lookups: l }: { templates: TemplateJson[]; lookups: Lookups }) {
  return (
    <AdminFrame current="/templates" title="Templates">
      <div class="admin-grid">
        <Wide label="Templates">
          <table class="plain">
            <thead>
              <tr>
                <th>Name</th>
                <th>Description</th>
                <th>Queue</th>
              </tr>
            </thead>
            <tbody>
              {templates.map((t) => (
                <tr>
                  <td>
                    <a href={`/templates/${t.id}`}>{t.name}</a>
                  </td>
                  <td>{t.description}</td>
                  <td>{t.queue_id ? queueName(l, t.queue_id) : 'All'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </Wide>
        <div class="card">
          <h2>New template</h2>
          <AdminForm action="/templates" id="new-template">
            <Text name="name" label="Name" required />
            <Text name="description" label="Description" />
            <Text name="subject" label="Subject" placeholder="Re: {{ ticket.subject }}" />
            <Area name="body" label="Body" rows={6} />
            <button type="submit" class="primary">
              Create template
            </button>
          </AdminForm>
        </div>
      </div>
    </AdminFrame>
  );
}

export function TemplatePage({
  template: t,
  lookups: l,
  usedBy,
}: {
  template: TemplateJson;
  lookups: Lookups;
  usedBy: string[];
}) {
  return (
    <AdminFrame current="/templates" title={`Template ${t.name}`}>
      <div class="admin-grid">
        <div class="card">
          <AdminForm action={`/templates/${t.id}`} method="PATCH" id="edit-template">
            <Text name="name" label="Name" value={t.name} required />
            <Text name="description" label="Description" value={t.description} />
            <Choice name="queue_id" label="Queue" value={t.queue_id} options={queueOptions(l, 'All queues')} />
            <Text name="subject" label="Subject" value={t.subject} />
            <Area name="body" label="Body" value={t.body} rows={12} hint={`Liquid. Variables: ${VARIABLES}`} />
            <button type="submit" class="primary">
              Save
            </button>
          </AdminForm>
        </div>
        <div class="card">
          <h2>Preview</h2>
          <form
            id="preview-form"
            hx-post="/templates/preview"
            hx-trigger="input from:#edit-template delay:400ms, change from:#edit-template, input delay:400ms, load"
            hx-include="#edit-template [name=subject], #edit-template [name=body]"
            hx-target="#preview"
            data-error-target="#preview"
          >
            <label>
              Against ticket # <input name="ticket_id" type="number" min="1" placeholder="sample data" />
            </label>
          </form>
          <div id="preview" class="preview" aria-live="polite"></div>
          <p class="muted small">{usedBy.length ? `Used by scrip ${usedBy.join(', ')}.` : 'Not used by any scrip.'}</p>
          <AdminForm
            action={`/templates/${t.id}`}
            method="DELETE"
            id="delete-template"
            confirm={`Delete template ${t.name}?`}
          >
            <button type="submit" class="danger">
              Delete template
            </button>
          </AdminForm>
        </div>
      </div>
    </AdminFrame>
  );
}

export function TemplatePreview({ subject, body }: { subject: string; body: string }) {
  return (
    <div>
      <p>
        <strong>Subject:</strong> {subject}
      </p>
      <div class="preview-body">{body}</div>
    </div>
  );
}

/** The conditions and actions a scrip may have: the engine's, handed over by the route (decision 046). */
export interface ScripChoices {
  conditions: readonly string[];
  actions: readonly string[];
}

function ScripFields({
  id,
  action,
  l,
  s,
  templates,
  choices,
}: {
  id: string;
  action: string;
  l: Lookups;
  s?: ScripJson;
  templates: TemplateJson[];
  choices: ScripChoices;
}) {
  return (
    <AdminForm action={action} method={s ? 'PATCH' : 'POST'} id={id}>
      <Text name="key" label="Key" value={s?.key} required />
      <Text name="description" label="Description" value={s?.description} />
      <Choice
        name="condition"
        label="When"
        value={s?.condition ?? 'on_create'}
        options={choices.conditions.map((c): [string, string] => [c, c.replace(/_/g, ' ')])}
      />
      <Choice
        name="action"
        label="Do"
        value={s?.action ?? 'notify_requester'}
        options={choices.actions.map((a): [string, string] => [a, a.replace(/_/g, ' ')])}
      />
      <Choice
        name="template_id"
        label="Template"
        value={s?.template_id}
        options={[['', '—'], ...templates.map((t): [string, string] => [String(t.id), t.name])]}
      />
      <Choice name="queue_id" label="Queue" value={s?.queue_id} options={queueOptions(l, 'All queues')} />
      <Text name="sort_order" label="Order" type="number" value={s?.sort_order ?? 0} />
      <Area
        name="config"
        label="Config (JSON)"
        value={JSON.stringify(s?.config ?? {})}
        rows={2}
        hint={
          'notify_webhook: {"url": "https://…"} · set_status: {"status": "open"} · on_idle: {"statuses": ["stalled"], "hours": 40, "business": true} · close_idle: {"template": "Closing"} · on_sla_warning, on_sla_breach: {"clock": "first_response"} (or next_response, resolution; none: any clock) · on_tag_added: {"if_tag": "vip"} (none: any tag) · add_tag: {"tag": "vip"} · on_rating: {"max": "bad"} (or okay: okay and bad ratings)'
        }
      />
      <Check name="enabled" label="Enabled" checked={s ? s.enabled : true} />
      <button type="submit" class="primary">
        {s ? 'Save' : 'Create scrip'}
      </button>
    </AdminForm>
  );
}

export function ScripsPage({
  scrips,
  templates,
  lookups: l,
  choices,
}: {
  scrips: ScripJson[];
  templates: TemplateJson[];
  lookups: Lookups;
  choices: ScripChoices;
}) {
  return (
    <AdminFrame current="/scrips" title="Scrips">
      <div class="admin-grid">
        <Wide label="Scrips">
          <table class="plain">
            <thead>
              <tr>
                <th>Order</th>
                <th>Key</th>
                <th>When</th>
                <th>Do</th>
                <th>Template</th>
                <th>Queue</th>
                <th>On</th>
              </tr>
            </thead>
            <tbody>
              {scrips.map((s) => (
                <tr class={s.enabled ? '' : 'muted'}>
                  <td>{s.sort_order}</td>
                  <td>
                    <a href={`/scrips/${s.id}`}>{s.key}</a>
                  </td>
                  <td>{s.condition}</td>
                  <td>{s.action}</td>
                  <td>{templates.find((t) => t.id === s.template_id)?.name ?? '—'}</td>
                  <td>{s.queue_id ? queueName(l, s.queue_id) : 'All'}</td>
                  <td>{s.enabled ? 'Yes' : 'No'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </Wide>
        <div class="card">
          <h2>New scrip</h2>
          <ScripFields id="new-scrip" action="/scrips" l={l} templates={templates} choices={choices} />
        </div>
      </div>
    </AdminFrame>
  );
}

export function ScripPage({
  scrip: s,
  templates,
  lookups: l,
  choices,
  preview,
}: {
  scrip: ScripJson;
  templates: TemplateJson[];
  lookups: Lookups;
  choices: ScripChoices;
  /** SPEC D2: an on_idle scrip's preview. */
  preview?: ScripPreview;
}) {
  return (
    <AdminFrame current="/scrips" title={`Scrip ${s.key}`}>
      <div class="admin-grid">
        <div class="card">
          <ScripFields id="edit-scrip" action={`/scrips/${s.id}`} l={l} s={s} templates={templates} choices={choices} />
        </div>
        {preview && <ScripPreviewCard preview={preview} lookups={l} />}
        <div class="card">
          <AdminForm action={`/scrips/${s.id}`} method="DELETE" id="delete-scrip" confirm={`Delete scrip ${s.key}?`}>
            <button type="submit" class="danger">
              Delete scrip
            </button>
          </AdminForm>
        </div>
      </div>
    </AdminFrame>
  );
}
