import type { Lookups } from '../../domain/lookups.js';
import type { ScripJson } from '../../domain/scrips.js';
import type { TemplateJson } from '../../domain/templates.js';
import { queueName } from '../format.js';
import type { ScripPreview } from '../../domain/time/idlePreview.js';
import { ScripPreviewCard } from './scripPreview.js';
import { AdminForm, AdminFrame, Wide, Area, Check, Choice, Text, queueOptions } from './common.js';

// The scrips admin pages (SPEC A, D2): the list, a scrip, with its preview.

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
