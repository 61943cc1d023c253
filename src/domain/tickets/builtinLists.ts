/** SPEC D3: built-in lists go by status category, whatever the queues' lifecycles call them. */
const NOT_DONE = 'initial,active,waiting';

/**
 * The built-in lists beside the saved views (SPEC C4, decision 035): plain list filters, their
 * state in the query string like any list, relative to whoever opens them ("me", "my teams").
 */
export const BUILTIN_LISTS = [
  // SPEC D2: a snoozed ticket leaves My open tickets until it wakes, for the list Snoozed.
  {
    key: 'mine',
    name: 'My open tickets',
    params: { owner_id: 'me', status_category: NOT_DONE, snoozed: 'false' },
  },
  {
    key: 'unassigned',
    name: 'Unassigned in my teams’ queues',
    params: { owner_id: 'none', status_category: NOT_DONE, my_teams: 'true' },
  },
  // SPEC D2: every ticket past a clock's due time or inside its warning window, soonest due first.
  { key: 'sla', name: 'Breached and due soon', params: { sla: 'breached,due_soon' }, sort: 'due' },
  { key: 'snoozed', name: 'Snoozed', params: { snoozed: 'true' } },
  { key: 'all', name: 'All', params: {} },
] as const satisfies readonly { key: string; name: string; params: Record<string, string>; sort?: string }[];

export type BuiltinList = (typeof BUILTIN_LISTS)[number];

/** `/tickets?owner_id=me&status_category=initial,active,waiting` (commas kept: the list reads them as they are). */
export const builtinListUrl = (b: BuiltinList) => {
  const s = Object.entries({ ...b.params, ...('sort' in b ? { sort: b.sort } : {}) })
    .map(([k, v]) => `${k}=${encodeURIComponent(v).replaceAll('%2C', ',')}`)
    .join('&');
  return `/tickets${s ? `?${s}` : ''}`;
};

/** Where agents and administrators land after signing in and at `/`: their open tickets. */
export const STAFF_LANDING = builtinListUrl(BUILTIN_LISTS[0]);

/** Parameters that only show a list differently (order, page, columns): a list is still "current" with them. */
const PRESENTATION = new Set(['sort', 'limit', 'offset', 'columns']);

/** The built-in list these list parameters are, if any (presentation parameters aside). */
export function currentBuiltin(params: Record<string, string>): BuiltinList | undefined {
  const own = Object.entries(params).filter(([k, v]) => !PRESENTATION.has(k) && v !== '');
  return BUILTIN_LISTS.find((b) => {
    const want = Object.entries(b.params) as [string, string][];
    return (
      want.length === own.length &&
      want.every(([k, v]) =>
        own.some(
          ([k2, v2]) =>
            k2 === k &&
            (v2 === v ||
              ((k === 'my_teams' || k === 'snoozed') && v === 'true' && ['1', 'true', 'on', 'yes'].includes(v2)) ||
              (k === 'snoozed' && v === 'false' && ['0', 'false', 'off', 'no'].includes(v2))),
        ),
      )
    );
  });
}
