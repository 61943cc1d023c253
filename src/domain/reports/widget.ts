import type { Db } from '../../db/port.js';
import type { Actor } from '../actor.js';
import { nowIso } from '../clock.js';
import { invalid } from '../errors.js';
import { addDays, localDate } from '../dates.js';
import { GROUP_BY, type GroupBy, MAX_DAYS, type ReportSummary, reportSummary } from './summary.js';

// SPEC D4 dashboard widget `report` (decision 079): `config: { group_by, days }`, the summary of
// the last `days` days (today included) in the reader's zone.

export const WIDGET_DAYS_DEFAULT = 30;

/** The widget's settings as stored, checked (422 naming `config.group_by` or `config.days`). */
export function checkReportConfig(config: Record<string, unknown> | undefined, path: string): void {
  const g = config?.group_by;
  if (g !== undefined && g !== '' && !(GROUP_BY as readonly unknown[]).includes(g))
    throw invalid(`${path}config.group_by`, `Expected one of: ${GROUP_BY.join(', ')}`);
  const d = config?.days;
  if (d !== undefined && d !== '' && !(Number.isInteger(Number(d)) && Number(d) >= 1 && Number(d) <= MAX_DAYS))
    throw invalid(`${path}config.days`, `Expected a whole number of days from 1 to ${MAX_DAYS}`);
}

export async function reportWidgetData(
  db: Db,
  actor: Actor,
  config: Record<string, unknown>,
): Promise<{ kind: 'report'; report: ReportSummary }> {
  const days = Number(config.days) || WIDGET_DAYS_DEFAULT;
  const group_by = ((GROUP_BY as readonly unknown[]).includes(config.group_by) ? config.group_by : 'queue') as GroupBy;
  const to = addDays(localDate(nowIso(db), actor.timezone ?? 'UTC'), 1);
  return { kind: 'report', report: await reportSummary(db, actor, { from: addDays(to, -days), to, group_by }) };
}
