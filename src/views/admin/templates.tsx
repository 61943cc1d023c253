import type { Lookups } from '../../domain/lookups.js';
import type { TemplateJson } from '../../domain/templates.js';
import { queueName } from '../format.js';
import { AdminForm, AdminFrame, Wide, Area, Choice, Text, queueOptions } from './common.js';

// The templates admin pages (SPEC A): the list, a template, its preview.

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
