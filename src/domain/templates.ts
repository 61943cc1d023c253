import { configTransaction } from '../db/configCache.js';
import { and, asc, eq, inArray, max } from 'drizzle-orm';
import { type Db, first, one } from '../db/port.js';
import { scrips, templates, transactions } from '../db/tables.js';
import { fullScope, sampleScope } from '../scrips/context.js';
import { isTemplateError, renderTemplate, templateError, templateErrorMessage } from '../scrips/templates.js';
import { type Actor, requireAdmin } from './actor.js';
import { nowIso } from './clock.js';
import { allCustomFields } from './customFields.js';
import { PUBLIC_TYPES } from './portal.js';
import { AppError, conflict, invalid, notFound, type ErrorDetail } from './errors.js';
import { getQueueRow } from './queues.js';
import { getTicketRow } from './tickets/serialize.js';
import { unique } from './unique.js';

export type TemplateJson = typeof templates.$inferSelect;

export async function listTemplates(db: Db, actor: Actor): Promise<TemplateJson[]> {
  requireAdmin(actor);
  return await db.select().from(templates).orderBy(asc(templates.name));
}

export async function getTemplate(db: Db, actor: Actor, id: number): Promise<TemplateJson> {
  requireAdmin(actor);
  const row = await first(db.select().from(templates).where(eq(templates.id, id)));
  if (!row) throw notFound('Template', id);
  return row;
}

export interface TemplateInput {
  name: string;
  description?: string;
  subject?: string;
  body?: string;
  queue_id?: number | null;
}

/**
 * A template that does not parse, names a variable or filter that does not exist, or renders
 * larger than 1 MiB against the sample (SPEC D0), is 422 naming the part.
 */
export async function checkLiquid(db: Db, parts: { subject?: string; body?: string }) {
  const scope = sampleScope((await allCustomFields(db)).map((f) => f.key));
  const details: ErrorDetail[] = [];
  for (const key of ['subject', 'body'] as const) {
    const source = parts[key];
    const error = source === undefined ? null : templateError(source, scope);
    if (error) details.push({ path: key, message: error });
  }
  if (details.length)
    throw new AppError('validation_failed', details.map((d) => `${d.path}: ${d.message}`).join('; '), details);
}

async function checkRest(db: Db, input: Partial<TemplateInput>) {
  if (input.queue_id != null && !(await getQueueRow(db, input.queue_id)))
    throw invalid('queue_id', `Queue ${input.queue_id} does not exist`);
}

export async function createTemplate(db: Db, actor: Actor, input: TemplateInput): Promise<TemplateJson> {
  requireAdmin(actor);
  await checkLiquid(db, input);
  await checkRest(db, input);
  const now = nowIso(db);
  return unique(
    db,
    input,
    async () =>
      await configTransaction(db, (tx) =>
        one(
          tx
            .insert(templates)
            .values({
              name: input.name,
              description: input.description ?? '',
              subject: input.subject ?? '',
              body: input.body ?? '',
              queue_id: input.queue_id ?? null,
              created_at: now,
              updated_at: now,
            })
            .returning(),
        ),
      ),
  );
}

export async function updateTemplate(
  db: Db,
  actor: Actor,
  id: number,
  input: Partial<TemplateInput>,
): Promise<TemplateJson> {
  await getTemplate(db, actor, id);
  await checkLiquid(db, input);
  await checkRest(db, input);
  return unique(
    db,
    input,
    async () =>
      await configTransaction(db, (tx) =>
        one(
          tx
            .update(templates)
            .set({ ...input, updated_at: nowIso(db) })
            .where(eq(templates.id, id))
            .returning(),
        ),
      ),
  );
}

/** SPEC B3: a template a scrip uses cannot be deleted (409 naming the scrip). */
export async function deleteTemplate(db: Db, actor: Actor, id: number): Promise<void> {
  await getTemplate(db, actor, id);
  const users = await db.select({ key: scrips.key }).from(scrips).where(eq(scrips.template_id, id));
  if (users.length) throw conflict(`Template ${id} is used by scrip ${users.map((s) => `"${s.key}"`).join(', ')}`);
  await configTransaction(db, (tx) => tx.delete(templates).where(eq(templates.id, id)));
}

export interface PreviewInput {
  subject: string;
  body: string;
  ticket_id?: number;
}

/**
 * Renders a draft against a real ticket (its latest transaction) or, without one, the sample;
 * `ticket.url` is on `publicUrl` (this server's, NotifySettings).
 */
export async function previewTemplate(
  db: Db,
  actor: Actor,
  input: PreviewInput,
  publicUrl: string,
): Promise<{ subject: string; body: string }> {
  requireAdmin(actor);
  await checkLiquid(db, input);
  let scope: object = sampleScope(
    (await allCustomFields(db)).map((f) => f.key),
    publicUrl,
  );
  if (input.ticket_id !== undefined) {
    if (!(await getTicketRow(db, input.ticket_id)))
      throw invalid('ticket_id', `Ticket ${input.ticket_id} does not exist`);
    scope = await ticketScope(db, input.ticket_id, publicUrl);
  }
  return {
    subject: previewPart('subject', input.subject, scope).replace(/\s+/g, ' ').trim(),
    body: previewPart('body', input.body, scope),
  };
}

/**
 * What a template sees of a real ticket: the ticket and one of its transactions, with the
 * sample's `scrip` (no scrip is running). `newest`: its latest transaction of any kind, as a
 * template preview shows it (a staff notice about a note renders that note). `public`: its
 * newest Create or Correspond, what the customer last saw — for a canned response, whose text
 * goes into a public reply, so `{{ transaction.body }}` is never an internal note (SPEC D0,
 * decision 040). The caller checks the ticket exists.
 */
export async function ticketScope(
  db: Db,
  ticketId: number,
  publicUrl: string,
  which: 'newest' | 'public' = 'newest',
): Promise<object> {
  const where = eq(transactions.ticket_id, ticketId);
  const last = (await first(
    db
      .select({ id: max(transactions.id) })
      .from(transactions)
      .where(which === 'public' ? and(where, inArray(transactions.type, [...PUBLIC_TYPES])) : where),
  ))!;
  return { ...(await fullScope(db, ticketId, last.id, publicUrl)), scrip: sampleScope([]).scrip };
}

/** Renders Liquid `source` as templates render (same engine and limits); its own failure is 422 naming `path`. */
export function renderLiquid(path: string, source: string, scope: object): string {
  return previewPart(path, source, scope);
}

/**
 * The check above renders against the sample; a real ticket can make the same draft exceed the
 * render time or memory limit, or render larger than 1 MiB (a loop over a long description, SPEC
 * D0). That is the draft's fault: 422 naming the part, and the render stopped at the limit.
 */
function previewPart(path: string, source: string, scope: object): string {
  try {
    return renderTemplate(source, scope);
  } catch (e) {
    if (isTemplateError(e)) throw invalid(path, templateErrorMessage(e));
    throw e;
  }
}
