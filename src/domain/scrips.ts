import { configTransaction } from '../db/configCache.js';
import { asc, eq } from 'drizzle-orm';
import { type Db, first, one } from '../db/port.js';
import { scrips, templates } from '../db/tables.js';
import { lifecycleOf } from './lifecycles/categories.js';
import { anyStatusNames } from './lifecycles/statuses.js';
import { MAIL_ACTIONS, type Action, type Condition } from '../scrips/kinds.js';
import { type Actor, parseJson, requireAdmin } from './actor.js';
import { nowIso } from './clock.js';
import { invalid, notFound } from './errors.js';
import { getQueueRow } from './queues.js';
import { SLA_CLOCKS } from './time/slaJson.js';
import { unique } from './unique.js';
import { normalizeTag } from './tags/normalize.js';
import { checkIdleScrip } from './time/idleScripCheck.js';
import { idleScripChanged } from './time/idle.js';
import { wakeTimerWorkers } from './time/worker.js';

type Row = typeof scrips.$inferSelect;
export type ScripJson = Omit<Row, 'config' | 'condition' | 'action'> & {
  condition: Condition;
  action: Action;
  config: Record<string, unknown>;
};

const toJson = (r: Row): ScripJson => ({
  ...r,
  condition: r.condition as Condition,
  action: r.action as Action,
  config: parseJson(r.config, {}),
});

export const SCRIP_KEY_RE = /^[a-z][a-z0-9_]*$/;

export async function listScrips(db: Db, actor: Actor): Promise<ScripJson[]> {
  requireAdmin(actor);
  return (await db.select().from(scrips).orderBy(asc(scrips.sort_order), asc(scrips.id))).map(toJson);
}

export async function getScrip(db: Db, actor: Actor, id: number): Promise<ScripJson> {
  requireAdmin(actor);
  const row = await first(db.select().from(scrips).where(eq(scrips.id, id)));
  if (!row) throw notFound('Scrip', id);
  return toJson(row);
}

export interface ScripInput {
  key: string;
  description?: string;
  condition: Condition;
  action: Action;
  template_id?: number | null;
  queue_id?: number | null;
  enabled?: boolean;
  sort_order?: number;
  config?: Record<string, unknown>;
}

/** Checks the whole scrip as it will be stored, so a saved scrip can always run. */
async function check(db: Db, s: ScripInput) {
  if (!SCRIP_KEY_RE.test(s.key))
    throw invalid('key', 'Must start with a lower-case letter and contain only a-z, 0-9 and _');
  if (
    s.template_id != null &&
    !(await first(db.select({ id: templates.id }).from(templates).where(eq(templates.id, s.template_id))))
  ) {
    throw invalid('template_id', `Template ${s.template_id} does not exist`);
  }
  if (MAIL_ACTIONS.includes(s.action) && s.template_id == null)
    throw invalid('template_id', `The ${s.action} action sends e-mail and needs a template`);
  if (s.queue_id != null && !(await getQueueRow(db, s.queue_id)))
    throw invalid('queue_id', `Queue ${s.queue_id} does not exist`);
  const config = s.config ?? {};
  if (s.action === 'notify_webhook') {
    let ok = false;
    try {
      ok = typeof config.url === 'string' && ['http:', 'https:'].includes(new URL(config.url).protocol);
    } catch {
      /* not a URL */
    }
    if (!ok) throw invalid('config.url', 'The notify_webhook action needs an http(s) URL');
  }
  if ((s.condition === 'on_sla_warning' || s.condition === 'on_sla_breach') && config.clock !== undefined) {
    if (!(SLA_CLOCKS as readonly unknown[]).includes(config.clock))
      throw invalid('config.clock', `The ${s.condition} condition's clock is one of: ${SLA_CLOCKS.join(', ')}`);
  }
  // SPEC D3: a status of the scrip's queue's lifecycle, or (a global scrip) of any lifecycle.
  if (s.action === 'set_status') {
    const names =
      s.queue_id != null ? (await lifecycleOf(db, s.queue_id)).statuses.map((x) => x.name) : await anyStatusNames(db);
    if (!names.includes(config.status as string))
      throw invalid('config.status', `The set_status action needs one of: ${names.join(', ')}`);
  }
  if (s.condition === 'on_idle' && Array.isArray(config.statuses)) {
    const names = await anyStatusNames(db);
    const unknown = config.statuses.find((x) => !names.includes(x as string));
    if (unknown !== undefined)
      throw invalid(
        'config.statuses',
        `The on_idle condition needs a list of statuses, each one of: ${names.join(', ')} (not ${JSON.stringify(unknown)})`,
      );
  }
  // SPEC D4: on_rating catches ratings at or below `config.max` (decision 082).
  if (s.condition === 'on_rating' && config.max !== undefined && config.max !== 'bad' && config.max !== 'okay')
    throw invalid('config.max', 'The on_rating condition catches ratings at or below bad or okay');
  await checkIdleScrip(db, s.condition, s.action, s.template_id ?? null, config);
}

/**
 * SPEC D3: the tags a scrip's config names, as stored (trimmed, lower-case; decision 074), or
 * a 422 naming `config.if_tag` / `config.tag`: what the engine compares and adds is a tag.
 */
function withTags(s: ScripInput): ScripInput {
  const config = { ...(s.config ?? {}) };
  if (s.condition === 'on_tag_added' && config.if_tag !== undefined && config.if_tag !== '')
    config.if_tag = normalizeTag(config.if_tag, 'config.if_tag');
  else if (config.if_tag === '') delete config.if_tag;
  if (s.action === 'add_tag') {
    if (config.tag === undefined || config.tag === '') throw invalid('config.tag', 'The add_tag action needs a tag');
    config.tag = normalizeTag(config.tag, 'config.tag');
  }
  return { ...s, config };
}

/**
 * The scrip as written, after its idle timers were set in the same unit of work (SPEC D2: an
 * enabled on_idle scrip fires within 2 s on the tickets idle long enough already); `armed` hears
 * whether it armed any, to wake the timer workers once the unit of work commits.
 */
async function withIdleTimers(
  tx: Db,
  rows: PromiseLike<Row[]>,
  before: ScripJson | null,
  armed: () => void,
): Promise<Row> {
  const row = await one(rows);
  const watchedBefore = before !== null && before.enabled && before.condition === 'on_idle';
  if (await idleScripChanged(tx, row.id, row, watchedBefore)) armed();
  return row;
}

export async function createScrip(db: Db, actor: Actor, input: ScripInput): Promise<ScripJson> {
  requireAdmin(actor);
  input = withTags(input);
  await check(db, input);
  const now = nowIso(db);
  let armed = false;
  const row = await configTransaction(db, (tx) =>
    unique(
      db,
      input,
      async () =>
        await withIdleTimers(
          tx,
          tx
            .insert(scrips)
            .values({
              key: input.key,
              description: input.description ?? '',
              condition: input.condition,
              action: input.action,
              template_id: input.template_id ?? null,
              queue_id: input.queue_id ?? null,
              enabled: input.enabled ?? true,
              sort_order: input.sort_order ?? 0,
              config: JSON.stringify(input.config ?? {}),
              created_at: now,
              updated_at: now,
            })
            .returning(),
          null,
          () => (armed = true),
        ),
    ),
  );
  if (armed) await wakeTimerWorkers(db);
  return toJson(row);
}

export async function updateScrip(db: Db, actor: Actor, id: number, input: Partial<ScripInput>): Promise<ScripJson> {
  const current = await getScrip(db, actor, id);
  const merged = withTags({ ...current, ...input });
  await check(db, merged);
  // The config as checked (its tags normalized), when this change sends one or changes what it is read for.
  if (input.config !== undefined || input.condition !== undefined || input.action !== undefined)
    input = { ...input, config: merged.config };
  const { config, ...rest } = input;
  let armed = false;
  const row = await configTransaction(db, (tx) =>
    unique(
      db,
      input,
      async () =>
        await withIdleTimers(
          tx,
          tx
            .update(scrips)
            .set({
              ...rest,
              ...(config !== undefined ? { config: JSON.stringify(config) } : {}),
              updated_at: nowIso(db),
            })
            .where(eq(scrips.id, id))
            .returning(),
          current,
          () => (armed = true),
        ),
    ),
  );
  if (armed) await wakeTimerWorkers(db);
  return toJson(row);
}

export async function deleteScrip(db: Db, actor: Actor, id: number): Promise<void> {
  await getScrip(db, actor, id);
  await configTransaction(db, async (tx) => {
    await idleScripChanged(tx, id, null, false);
    await tx.delete(scrips).where(eq(scrips.id, id));
  });
}
