import type { Child } from 'hono/jsx';
import type { Lookups } from '../../domain/lookups.js';

const SECTIONS: [string, string][] = [
  ['/users', 'Users'],
  ['/teams', 'Teams'],
  ['/queues', 'Queues'],
  ['/custom-fields', 'Custom fields'],
  ['/templates', 'Templates'],
  ['/scrips', 'Scrips'],
  ['/tags', 'Tags'],
  ['/calendars', 'Calendars'],
  ['/sla-policies', 'SLA policies'],
  ['/lifecycles', 'Lifecycles'],
  ['/outbox', 'Outbox'],
  ['/mail/intake', 'Mail intake'],
  ['/mail-settings', 'Mail addresses'],
];

/** The admin area's frame: its sub-navigation, a title, and the page. */
export function AdminFrame({ current, title, children }: { current: string; title: string; children?: Child }) {
  return (
    <section class="admin">
      <nav class="admin-nav" aria-label="Administration">
        {SECTIONS.map(([href, label]) => (
          <a href={href} class={href === current ? 'current' : ''} aria-current={href === current ? 'page' : undefined}>
            {label}
          </a>
        ))}
      </nav>
      <header class="page-head">
        <h1>{title}</h1>
      </header>
      {children}
    </section>
  );
}

/**
 * A wide table's own horizontal scroller: on a narrow screen the table scrolls inside it and the
 * page never scrolls sideways. Focusable and named, so a keyboard can scroll it too.
 */
export const Wide = ({ label, children }: { label: string; children?: Child }) => (
  <div class="table-wrap" role="region" aria-label={label} tabindex={0}>
    {children}
  </div>
);

/**
 * A form that works as a plain POST (with `_method` for PATCH/DELETE) and, with htmx, shows
 * its errors in place instead of losing what was typed.
 */
export function AdminForm({
  action,
  method = 'POST',
  id,
  children,
  confirm,
}: {
  action: string;
  method?: 'POST' | 'PATCH' | 'DELETE';
  id: string;
  children?: Child;
  confirm?: string;
}) {
  return (
    <form method="post" action={action} id={id} data-error-target={`#${id}-error`} hx-confirm={confirm}>
      {method !== 'POST' && <input type="hidden" name="_method" value={method} />}
      {children}
      <div class="field-error form-error" id={`${id}-error`} role="alert"></div>
    </form>
  );
}

export const Text = ({
  name,
  label,
  value,
  required,
  type = 'text',
  placeholder,
  hint,
}: {
  name: string;
  label: string;
  value?: string | number | null;
  required?: boolean;
  type?: string;
  placeholder?: string;
  hint?: string;
}) => (
  <label>
    {label}
    <input
      name={name}
      type={type}
      value={value == null ? '' : String(value)}
      required={required}
      placeholder={placeholder}
    />
    {hint && <small class="hint">{hint}</small>}
  </label>
);

export const Area = ({
  name,
  label,
  value,
  rows = 4,
  hint,
}: {
  name: string;
  label: string;
  value?: string | null;
  rows?: number;
  hint?: string;
}) => (
  <label>
    {label}
    <textarea name={name} rows={rows}>
      {value ?? ''}
    </textarea>
    {hint && <small class="hint">{hint}</small>}
  </label>
);

export const Choice = ({
  name,
  label,
  value,
  options,
}: {
  name: string;
  label: string;
  value?: string | number | null;
  options: [string, string][];
}) => (
  <label>
    {label}
    <select name={name}>
      {options.map(([v, t]) => (
        <option value={v} selected={String(value ?? '') === v}>
          {t}
        </option>
      ))}
    </select>
  </label>
);

/** A checkbox that also sends "false" when unchecked (the hidden field comes first; the last value wins). */
export const Check = ({ name, label, checked }: { name: string; label: string; checked?: boolean }) => (
  <label class="checkbox">
    <input type="hidden" name={name} value="false" />
    <input type="checkbox" name={name} value="true" checked={checked} /> {label}
  </label>
);

/**
 * The pager of an admin list: where this page is in the whole ("51–73 of 73") and links to the
 * previous and next pages, each the same list (the filters of `query` kept, its offset replaced).
 */
export function ListPager({
  path,
  query,
  total,
  limit,
  offset,
}: {
  path: string;
  query: Record<string, string | number | undefined>;
  total: number;
  limit: number;
  offset: number;
}) {
  const href = (at: number) => {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(query))
      if (k !== 'offset' && v !== undefined && v !== '') params.set(k, String(v));
    if (at > 0) params.set('offset', String(at));
    const qs = params.toString();
    return qs ? `${path}?${qs}` : path;
  };
  return (
    <nav class="pager" aria-label="Pages">
      <span>
        {total === 0 || offset >= total
          ? `0 of ${total}`
          : `${offset + 1}–${Math.min(offset + limit, total)} of ${total}`}
      </span>
      {offset > 0 && (
        <a href={href(Math.max(0, Math.min(offset, total) - limit))} rel="prev">
          ← Previous
        </a>
      )}
      {offset + limit < total && (
        <a href={href(offset + limit)} rel="next">
          Next →
        </a>
      )}
    </nav>
  );
}

/** A select's options of every queue, after `none` (the empty value). */
export const queueOptions = (l: Lookups, none: string): [string, string][] => [
  ['', none],
  ...l.queues.map((q): [string, string] => [String(q.id), q.name]),
];
