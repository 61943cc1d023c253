import type { Child } from 'hono/jsx';
import type { WidgetData } from '../domain/dashboardData.js';
import type { DashboardJson, WidgetJson } from '../domain/dashboards.js';
import type { Lookups } from '../domain/lookups.js';
import type { TicketJson } from '../domain/tickets/serialize.js';
import { Wide } from './admin/common.js';
import { SummaryTable } from './reports.js';
import { STATUS_LABEL, teamName, userName, When } from './format.js';
import { UnreadMark } from './tickets/unread.js';

const KINDS: [string, string][] = [
  ['my_tickets', 'My open tickets'],
  ['ticket_list', 'Tickets of a saved view'],
  ['status_counts', 'Tickets by status'],
  ['queue_counts', 'Active tickets by queue'],
  ['team_workload', 'Team workload'],
  ['report', 'Report summary'],
];

export function DashboardList({ dashboards, lookups: l }: { dashboards: DashboardJson[]; lookups: Lookups }) {
  return (
    <section>
      <header class="page-head">
        <h1>Dashboards</h1>
      </header>
      <div class="admin-grid">
        <Wide label="Dashboards">
          <table class="plain">
            <thead>
              <tr>
                <th>Name</th>
                <th>Team</th>
                <th>Widgets</th>
              </tr>
            </thead>
            <tbody>
              {dashboards.length === 0 && (
                <tr>
                  <td colspan={3} class="empty">
                    No dashboards yet.
                  </td>
                </tr>
              )}
              {dashboards.map((d) => (
                <tr>
                  <td>
                    <a href={`/dashboards/${d.id}`}>{d.name}</a>
                  </td>
                  <td>{teamName(l, d.team_id, 'Everyone')}</td>
                  <td>{d.widgets.length}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </Wide>
        <div class="card">
          <h2>New dashboard</h2>
          <form method="post" action="/dashboards">
            <label>
              Name <input name="name" required maxlength={200} />
            </label>
            <label>
              Visible to
              <select name="team_id">
                <option value="">Everyone</option>
                {l.teams.map((t) => (
                  <option value={String(t.id)}>{t.name}</option>
                ))}
              </select>
            </label>
            <button type="submit" class="primary">
              Create dashboard
            </button>
          </form>
        </div>
      </div>
    </section>
  );
}

function MiniList({
  tickets,
  total,
  exact,
  more,
}: {
  tickets: TicketJson[];
  total: number;
  exact: boolean;
  more?: string;
}) {
  const all = `${total.toLocaleString('en')}${exact ? '' : '+'}`;
  if (tickets.length === 0) return <p class="muted">Nothing here.</p>;
  return (
    <>
      <ul class="mini-list">
        {tickets.map((t) => (
          <li class={t.unread ? 'unread' : undefined}>
            {t.unread && <UnreadMark />}
            <a href={`/tickets/${t.id}`}>
              #{t.id} {t.subject}
            </a>{' '}
            <span class={`status status-${t.status}`}>{STATUS_LABEL[t.status]}</span>{' '}
            <span class="muted small">
              <When iso={t.updated_at} />
            </span>
          </li>
        ))}
      </ul>
      {total > tickets.length &&
        (more ? <a href={more}>All {all} →</a> : <span class="muted small">{all} in all</span>)}
    </>
  );
}

function Bars({ rows }: { rows: { label: string; count: number; href?: string }[] }) {
  const max = Math.max(1, ...rows.map((r) => r.count));
  return (
    <div class="bars">
      {rows.map((r) => (
        <div class="bar">
          <span>{r.href ? <a href={r.href}>{r.label}</a> : r.label}</span>
          <span class="fill" style={`width:${(r.count / max) * 100}%`}></span>
          <span class="num">{r.count}</span>
        </div>
      ))}
    </div>
  );
}

export function WidgetBody({ data, l }: { data: WidgetData; l: Lookups }) {
  if ('error' in data) return <p class="error">{data.error}</p>;
  switch (data.kind) {
    case 'ticket_list':
      return (
        <MiniList
          tickets={data.tickets}
          total={data.total}
          exact={data.total_exact}
          more={`/tickets?view_id=${data.view_id}`}
        />
      );
    case 'my_tickets':
      return <MiniList tickets={data.tickets} total={data.total} exact={data.total_exact} />;
    case 'status_counts':
      return (
        <Bars
          rows={data.counts.map((c) => ({
            label: STATUS_LABEL[c.status] ?? c.status,
            count: c.count,
            href: `/tickets?status=${c.status}`,
          }))}
        />
      );
    case 'queue_counts':
      return (
        <Bars
          rows={data.counts.map((c) => ({
            label: c.name,
            count: c.count,
            href: `/tickets?queue_id=${c.queue_id}&status=new,open,stalled`,
          }))}
        />
      );
    case 'team_workload':
      return (
        <Bars
          rows={data.rows.map((r) => ({
            label: r.name || userName(l, r.user_id),
            count: r.count,
            href: `/tickets?owner_id=${r.user_id}&status=new,open,stalled`,
          }))}
        />
      );
    case 'report':
      return data.report.rows.length === 0 ? (
        <p class="muted">Nothing happened in these days.</p>
      ) : (
        <SummaryTable
          report={data.report}
          caption={`By ${data.report.group_by}, ${data.report.from} to ${data.report.to}`}
        />
      );
    default:
      return null;
  }
}

/** What a widget's heading (and its buttons' names) call it: its title, else its kind. */
const widgetTitle = (w: WidgetJson) => w.title || KINDS.find(([k]) => k === w.kind)?.[1] || w.kind;

/**
 * The dashboard page's live part (SPEC C5): one stream for the tab, outside `#dashboard` (which
 * its own forms swap), and the element that hears `sse:ticket` for the widgets.
 */
export function DashboardLive({ children }: { children?: Child }) {
  return (
    <div hx-ext="sse" sse-connect="/events" data-live-root>
      <span hidden hx-trigger="sse:ticket" data-live-tick></span>
      {children}
    </div>
  );
}

type DashboardWithData = Omit<DashboardJson, 'widgets'> & { widgets: (WidgetJson & { data: WidgetData })[] };

export function DashboardPage({ d, lookups: l }: { d: DashboardWithData; lookups: Lookups }) {
  const base = `/dashboards/${d.id}`;
  return (
    <section id="dashboard" class="dashboard">
      <header class="page-head">
        {/* The page's one heading; its visible form is the name field next to it. */}
        <h1 class="visually-hidden">{d.name}</h1>
        <form
          method="post"
          action={base}
          hx-patch={base}
          hx-trigger="change"
          hx-target="#dashboard"
          hx-swap="outerHTML"
          class="inline-form"
          data-error-target="#dash-error"
        >
          <input type="hidden" name="_method" value="PATCH" />
          <label>
            Dashboard <input name="name" value={d.name} required maxlength={200} />
          </label>
          <label>
            Visible to
            <select name="team_id" id="dashboard-team">
              <option value="" selected={d.team_id == null}>
                Everyone
              </option>
              {l.teams.map((t) => (
                <option value={String(t.id)} selected={t.id === d.team_id}>
                  {t.name}
                </option>
              ))}
            </select>
          </label>
          <noscript>
            <button type="submit">Save</button>
          </noscript>
        </form>
        <span class="muted">
          {d.team_id == null ? 'Shared with everyone' : `Team ${teamName(l, d.team_id)} and administrators`}
        </span>
        <div class="field-error" id="dash-error" role="alert"></div>
      </header>
      <div class="widgets">
        {d.widgets.map((w, i) => (
          <article class="card widget" id={`widget-${w.id}`}>
            <h2>
              <span>{widgetTitle(w)}</span>
              <span class="tools">
                {i > 0 && (
                  <form
                    method="post"
                    action={`${base}/widgets/${w.id}`}
                    hx-patch={`${base}/widgets/${w.id}`}
                    hx-target="#dashboard"
                    hx-swap="outerHTML"
                  >
                    <input type="hidden" name="_method" value="PATCH" />
                    <input type="hidden" name="position" value={String(i - 1)} />
                    <button type="submit" aria-label={`Move ${widgetTitle(w)} up`}>
                      ↑
                    </button>
                  </form>
                )}
                {i < d.widgets.length - 1 && (
                  <form
                    method="post"
                    action={`${base}/widgets/${w.id}`}
                    hx-patch={`${base}/widgets/${w.id}`}
                    hx-target="#dashboard"
                    hx-swap="outerHTML"
                  >
                    <input type="hidden" name="_method" value="PATCH" />
                    <input type="hidden" name="position" value={String(i + 1)} />
                    <button type="submit" aria-label={`Move ${widgetTitle(w)} down`}>
                      ↓
                    </button>
                  </form>
                )}
                <form
                  method="post"
                  action={`${base}/widgets/${w.id}`}
                  hx-delete={`${base}/widgets/${w.id}`}
                  hx-target="#dashboard"
                  hx-swap="outerHTML"
                >
                  <input type="hidden" name="_method" value="DELETE" />
                  <button type="submit" aria-label={`Remove ${widgetTitle(w)}`}>
                    ✕
                  </button>
                </form>
              </span>
            </h2>
            {/* SPEC C5: the widget loads its own contents again while tickets change (static/live-list.js).
                Its links are boosted page loads: they must not inherit its target, swap and push-url. */}
            <div
              class="widget-body"
              id={`widget-body-${w.id}`}
              data-live-widget
              data-live-refresh
              hx-get={`${base}/widgets/${w.id}`}
              hx-trigger="live:load, live:refresh"
              hx-swap="innerHTML"
              hx-push-url="false"
              hx-disinherit="*"
            >
              <WidgetBody data={w.data} l={l} />
            </div>
          </article>
        ))}
        <article class="card">
          <h2>Add a widget</h2>
          <form
            method="post"
            action={`${base}/widgets`}
            hx-post={`${base}/widgets`}
            hx-target="#dashboard"
            hx-swap="outerHTML"
            data-error-target="#widget-error"
          >
            <label>
              Kind{' '}
              <select name="kind">
                {KINDS.map(([k, label]) => (
                  <option value={k}>{label}</option>
                ))}
              </select>
            </label>
            <label>
              Title <input name="title" maxlength={200} placeholder="(optional)" />
            </label>
            <label>
              Saved view (for “Tickets of a saved view”)
              <select name="config.view_id">
                <option value="">—</option>
                {l.savedViews.map((v) => (
                  <option value={String(v.id)}>{v.name}</option>
                ))}
              </select>
            </label>
            <label>
              Team (for “Team workload”)
              <select name="config.team_id">
                <option value="">The dashboard's team</option>
                {l.teams.map((t) => (
                  <option value={String(t.id)}>{t.name}</option>
                ))}
              </select>
            </label>
            <label>
              Group by (for “Report summary”)
              <select name="config.group_by">
                {['queue', 'team', 'owner', 'tag', 'week', 'day'].map((g) => (
                  <option value={g}>{g}</option>
                ))}
              </select>
            </label>
            <label>
              Days (for “Report summary”) <input name="config.days" type="number" min={1} max={366} value="30" />
            </label>
            <button type="submit" class="primary">
              Add widget
            </button>
            <div class="field-error" id="widget-error" role="alert"></div>
          </form>
        </article>
      </div>
      <form
        method="post"
        action={base}
        hx-delete={base}
        hx-confirm={`Delete the dashboard “${d.name}”?`}
        class="inline-form"
        style="margin-top:1rem"
      >
        <input type="hidden" name="_method" value="DELETE" />
        <button type="submit" class="danger">
          Delete dashboard
        </button>
      </form>
    </section>
  );
}
