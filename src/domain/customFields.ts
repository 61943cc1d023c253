import { cachedConfig, configTransaction } from '../db/configCache.js';
import { asc, eq, inArray } from 'drizzle-orm';
import { type Conn, type Db, prepared, first, one } from '../db/port.js';
import { customFieldQueues, customFields } from '../db/tables.js';
import { type Actor, parseJson, requireAdmin, requireStaff } from './actor.js';
import { nowIso } from './clock.js';
import { invalid, notFound } from './errors.js';
import { getQueueRow } from './queues.js';
import { unique } from './unique.js';

export const CF_TYPES = ['text', 'number', 'select', 'date'] as const;
export type CfType = (typeof CF_TYPES)[number];
export const CF_KEY_RE = /^[a-z][a-z0-9_]*$/;

export interface CustomFieldJson {
  id: number;
  key: string;
  name: string;
  type: CfType;
  options: string[];
  pattern: string | null;
  required: boolean;
  queue_ids: number[];
  created_at: string;
  updated_at: string;
}
type Row = typeof customFields.$inferSelect;

type LinkRow = typeof customFieldQueues.$inferSelect;

async function toJson(db: Conn, rows: Row[], allLinks?: LinkRow[]): Promise<CustomFieldJson[]> {
  if (rows.length === 0) return [];
  const links =
    allLinks ??
    (await db
      .select()
      .from(customFieldQueues)
      .where(
        inArray(
          customFieldQueues.field_id,
          rows.map((r) => r.id),
        ),
      ));
  return rows.map((r) => ({
    id: r.id,
    key: r.key,
    name: r.name,
    type: r.type,
    options: parseJson<string[]>(r.options, []),
    pattern: r.pattern,
    required: r.required,
    queue_ids: links
      .filter((l) => l.field_id === r.id)
      .map((l) => l.queue_id)
      .sort((a, b) => a - b),
    created_at: r.created_at,
    updated_at: r.updated_at,
  }));
}

/** Every field with the queues it is limited to, in one statement (decision 066: every create reads them). */
const everyFieldWithLinks = prepared((db) =>
  db
    .select({ field: customFields, link: customFieldQueues })
    .from(customFields)
    .leftJoin(customFieldQueues, eq(customFieldQueues.field_id, customFields.id))
    .orderBy(asc(customFields.name), asc(customFields.id)),
);

/** Every custom field (internal: used to validate ticket values and filters). */
export async function allCustomFields(db: Conn): Promise<CustomFieldJson[]> {
  // Kept by the process for the configuration's version inside a unit of work (decision 067).
  return cachedConfig(db, 'custom-fields', () => readAllCustomFields(db));
}
async function readAllCustomFields(db: Conn): Promise<CustomFieldJson[]> {
  const rows = await everyFieldWithLinks(db).all();
  const fields = new Map<number, Row>();
  const links: LinkRow[] = [];
  for (const r of rows) {
    fields.set(r.field.id, r.field);
    if (r.link) links.push(r.link);
  }
  return toJson(db, [...fields.values()], links);
}

export const appliesToQueue = (f: CustomFieldJson, queueId: number) =>
  f.queue_ids.length === 0 || f.queue_ids.includes(queueId);

export async function listCustomFields(db: Db, actor: Actor, queueId?: number): Promise<CustomFieldJson[]> {
  requireStaff(actor);
  const all = await allCustomFields(db);
  return queueId === undefined ? all : all.filter((f) => appliesToQueue(f, queueId));
}

export async function getCustomField(db: Db, actor: Actor, id: number): Promise<CustomFieldJson> {
  requireStaff(actor);
  const row = await first(db.select().from(customFields).where(eq(customFields.id, id)));
  if (!row) throw notFound('Custom field', id);
  return (await toJson(db, [row]))[0];
}

export interface CustomFieldInput {
  key: string;
  name: string;
  type: CfType;
  options?: string[];
  pattern?: string | null;
  required?: boolean;
  queue_ids?: number[];
}

async function checkDefinition(db: Db, def: CustomFieldInput) {
  if (!CF_KEY_RE.test(def.key))
    throw invalid('key', 'Must start with a lower-case letter and contain only a-z, 0-9 and _');
  if (def.type === 'select' && (def.options ?? []).length === 0)
    throw invalid('options', 'A select field needs at least one option');
  if (new Set(def.options ?? []).size !== (def.options ?? []).length)
    throw invalid('options', 'Options must be distinct');
  if (def.pattern) {
    try {
      new RegExp(def.pattern, 'u');
    } catch (e) {
      throw invalid('pattern', `Not a valid regular expression: ${(e as Error).message}`);
    }
  }
  for (const [i, qid] of (def.queue_ids ?? []).entries()) {
    if (!(await getQueueRow(db, qid))) throw invalid(`queue_ids.${i}`, `Queue ${qid} does not exist`);
  }
}

async function writeQueues(db: Conn, fieldId: number, queueIds: number[]) {
  await configTransaction(db, (tx) => tx.delete(customFieldQueues).where(eq(customFieldQueues.field_id, fieldId)));
  for (const queue_id of new Set(queueIds))
    await configTransaction(db, (tx) => tx.insert(customFieldQueues).values({ field_id: fieldId, queue_id }));
}

export async function createCustomField(db: Db, actor: Actor, input: CustomFieldInput): Promise<CustomFieldJson> {
  requireAdmin(actor);
  await checkDefinition(db, input);
  const now = nowIso(db);
  return unique(db, input, () =>
    configTransaction(db, async (tx) => {
      const row = await one(
        tx
          .insert(customFields)
          .values({
            key: input.key,
            name: input.name,
            type: input.type,
            options: JSON.stringify(input.options ?? []),
            pattern: input.pattern || null,
            required: input.required ?? false,
            created_at: now,
            updated_at: now,
          })
          .returning(),
      );
      await writeQueues(tx, row.id, input.queue_ids ?? []);
      return (await toJson(tx, [row]))[0];
    }),
  );
}

export async function updateCustomField(
  db: Db,
  actor: Actor,
  id: number,
  input: Partial<CustomFieldInput>,
): Promise<CustomFieldJson> {
  requireAdmin(actor);
  const current = await getCustomField(db, actor, id);
  const merged: CustomFieldInput = { ...current, ...input };
  await checkDefinition(db, merged);
  return unique(db, merged, () =>
    configTransaction(db, async (tx) => {
      const row = await one(
        tx
          .update(customFields)
          .set({
            key: merged.key,
            name: merged.name,
            type: merged.type,
            options: JSON.stringify(merged.options ?? []),
            pattern: merged.pattern || null,
            required: merged.required ?? false,
            updated_at: nowIso(db),
          })
          .where(eq(customFields.id, id))
          .returning(),
      );
      if (input.queue_ids !== undefined) await writeQueues(tx, id, input.queue_ids);
      return (await toJson(tx, [row]))[0];
    }),
  );
}

export async function deleteCustomField(db: Db, actor: Actor, id: number): Promise<void> {
  requireAdmin(actor);
  await getCustomField(db, actor, id);
  await configTransaction(db, (tx) => tx.delete(customFields).where(eq(customFields.id, id)));
}

/**
 * Checks one value against its field and returns the text stored for it (numbers and dates
 * in canonical form, so equality filters match however the value was typed).
 */
export function normalizeCustomValue(field: CustomFieldJson, value: unknown, path: string): string {
  const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : undefined;
  if (text === undefined) throw invalid(path, `${field.name} must be a string or number`);
  if (text.length > 4000) throw invalid(path, `${field.name} must be at most 4000 characters`);
  let stored = text;
  if (field.type === 'number') {
    const n = Number(text);
    if (text === '' || !Number.isFinite(n)) throw invalid(path, `${field.name} must be a number`);
    stored = String(n);
  } else if (field.type === 'date') {
    const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
    const d = m && new Date(`${text}T00:00:00Z`);
    if (!m || !d || Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== text)
      throw invalid(path, `${field.name} must be a date (YYYY-MM-DD)`);
  } else if (field.type === 'select') {
    if (!field.options.includes(text)) throw invalid(path, `${field.name} must be one of: ${field.options.join(', ')}`);
  }
  if (field.pattern && !new RegExp(field.pattern, 'u').test(text)) {
    throw invalid(path, `${field.name} must match the pattern ${field.pattern}`);
  }
  return stored;
}

/** Typed value for the API: numbers come back as numbers. */
export const customValueJson = (type: string, stored: string): string | number =>
  type === 'number' ? Number(stored) : stored;
