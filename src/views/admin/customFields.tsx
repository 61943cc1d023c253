import type { CustomFieldJson } from '../../domain/customFields.js';
import type { Lookups } from '../../domain/lookups.js';
import { queueName } from '../format.js';
import { AdminForm, AdminFrame, Wide, Check, Choice, Text } from './common.js';

// The custom fields admin pages (SPEC A).

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
