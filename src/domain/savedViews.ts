import { and, asc, eq, inArray, or, sql } from 'drizzle-orm';
import { statusSpec } from './lifecycles/listStatus.js';
import { z } from 'zod';
import { type Db, first, one, prepared, transaction } from '../db/port.js';
import { savedViews, teamMembers, users } from '../db/tables.js';
import { type Actor, isAdmin, parseJson, requireStaff } from './actor.js';
import { nowIso } from './clock.js';
import { allCustomFields } from './customFields.js';
import { AppError, forbidden, invalid, notFound } from './errors.js';
import { nestFilterParams, TicketFilterSchema, type TicketFilter } from './tickets/query.js';
import { getUserRow } from './users.js';
import { teamExists } from './teams.js';
import { zodDetails } from './validation.js';

/** The seven ticket-list columns (SPEC A), and the set shown when no saved view is active. */
export const COLUMNS = ['ID', 'Subject', 'Status', 'Queue', 'Owner', 'Created', 'Updated'] as const;
export type Column = (typeof COLUMNS)[number];
export const DEFAULT_COLUMNS: Column[] = ['ID', 'Subject', 'Status', 'Queue', 'Owner', 'Updated'];
export const MIN_WIDTH = 50;
export const MAX_WIDTH = 800;

export interface SavedViewJson {
  id: number;
  name: string;
  owner_id: number;
  filters: TicketFilter;
  columns: Column[];
  column_widths: Partial<Record<Column, number>>;
  created_at: string;
  updated_at: string;
  /** The team it is shared with (its members see it in their lists), or null: the owner's own. */
  team_id: number | null;
}

/** A view in someone's list: theirs, or shared with one of their teams by another (SPEC C4). */
export interface ListedViewJson extends SavedViewJson {
  shared: boolean;
  owner_name: string;
}
type Row = typeof savedViews.$inferSelect;

const toJson = (r: Row): SavedViewJson => ({
  id: r.id,
  name: r.name,
  owner_id: r.owner_id,
  filters: parseJson(r.filters, {}),
  columns: parseJson(r.columns, DEFAULT_COLUMNS),
  column_widths: parseJson(r.column_widths, {}),
  created_at: r.created_at,
  updated_at: r.updated_at,
  team_id: r.team_id,
});

/**
 * Views are the agents' tool (README, decision 004): personal, but readable by all staff, so a
 * team dashboard can show one. Requesters get 403 on every saved-view route: they see only their
 * own tickets and have no use for them (decision 016).
 */
async function visibleView(db: Db, actor: Actor, id: number): Promise<Row> {
  requireStaff(actor);
  const row = await first(db.select().from(savedViews).where(eq(savedViews.id, id)));
  if (!row) throw notFound('Saved view', id);
  return row;
}

async function editableView(db: Db, actor: Actor, id: number): Promise<Row> {
  const row = await visibleView(db, actor, id);
  if (row.owner_id !== actor.id && !isAdmin(actor)) throw forbidden('Only the owner of a saved view can change it');
  return row;
}

export async function getSavedViewFilters(db: Db, actor: Actor, id: number): Promise<TicketFilter> {
  requireStaff(actor);
  const row = await first(db.select().from(savedViews).where(eq(savedViews.id, id)));
  if (!row) throw invalid('view_id', `Saved view ${id} does not exist`);
  return toJson(row).filters;
}

/** Validates stored filters with the GET /tickets schema itself, so a view can always be applied. */
async function checkFilters(db: Db, raw: Record<string, unknown>): Promise<TicketFilter> {
  const parsed = TicketFilterSchema.safeParse(nestFilterParams(raw));
  if (!parsed.success)
    throw new AppError('validation_failed', 'Invalid saved view filters', zodDetails(parsed.error, 'filters'));
  const keys = (await allCustomFields(db)).map((f) => f.key);
  for (const key of Object.keys(parsed.data.cf ?? {})) {
    if (!keys.includes(key)) throw invalid(`filters.cf.${key}`, `No custom field with key "${key}"`);
  }
  // SPEC D3: each status one of some lifecycle's (as GET /tickets checks it).
  try {
    await statusSpec(db, { status: parsed.data.status });
  } catch (e) {
    if (e instanceof AppError && e.details)
      throw new AppError(
        e.code,
        e.message,
        e.details.map((d) => ({ ...d, path: `filters.${d.path}` })),
      );
    throw e;
  }
  return parsed.data;
}

export interface SavedViewInput {
  name: string;
  owner_id?: number;
  filters?: Record<string, unknown>;
  columns?: Column[];
  column_widths?: Partial<Record<Column, number>>;
  /** Share with this team (null: stop sharing). The owner must be a member, unless an administrator shares it. */
  team_id?: number | null;
}

/**
 * A view is shared only with a team its owner belongs to (its members then see it listed); an
 * administrator may share anyone's view with any team. An unknown team is a 422 on team_id.
 */
async function checkShare(db: Db, actor: Actor, ownerId: number, teamId: number | null | undefined): Promise<void> {
  if (teamId == null) return;
  if (!(await teamExists(db, teamId))) throw invalid('team_id', `Team ${teamId} does not exist`);
  if (isAdmin(actor)) return;
  const member = await first(
    db
      .select()
      .from(teamMembers)
      .where(and(eq(teamMembers.team_id, teamId), eq(teamMembers.user_id, ownerId))),
  );
  if (!member) throw forbidden(`You can share a view only with a team you belong to (not team ${teamId})`);
}

// Read by every staff page (its view picker): compiled once.
const viewsOf = prepared((db) => {
  const reader = sql.placeholder('reader');
  const myTeams = db.select({ id: teamMembers.team_id }).from(teamMembers).where(eq(teamMembers.user_id, reader));
  return db
    .select({ v: savedViews, owner_name: users.name, owner_email: users.email })
    .from(savedViews)
    .innerJoin(users, eq(users.id, savedViews.owner_id))
    .where(or(eq(savedViews.owner_id, reader), inArray(savedViews.team_id, myTeams)))
    .orderBy(asc(savedViews.name), asc(savedViews.id));
});

/** GET /saved-views and the list screen: the reader's own views and those shared with a team they belong to (`shared: true`, with the owner's name), by name. */
export async function listSavedViews(db: Db, actor: Actor): Promise<ListedViewJson[]> {
  requireStaff(actor);
  const rows = await viewsOf(db).all({ reader: actor.id });
  return rows.map((r) => ({
    ...toJson(r.v),
    shared: r.v.owner_id !== actor.id,
    owner_name: r.owner_name || r.owner_email,
  }));
}

function checkColumns(columns: Column[] | undefined) {
  if (columns && columns.length === 0) throw invalid('columns', 'Choose at least one column');
  if (columns && new Set(columns).size !== columns.length) throw invalid('columns', 'Each column may appear once');
}

export async function getSavedView(db: Db, actor: Actor, id: number): Promise<SavedViewJson> {
  return toJson(await visibleView(db, actor, id));
}

export async function createSavedView(db: Db, actor: Actor, input: SavedViewInput): Promise<SavedViewJson> {
  requireStaff(actor);
  let ownerId = actor.id;
  if (input.owner_id !== undefined && input.owner_id !== actor.id) {
    if (!isAdmin(actor)) throw forbidden('Only administrators can create views for another user');
    const owner = await getUserRow(db, input.owner_id);
    if (!owner) throw invalid('owner_id', `User ${input.owner_id} does not exist`);
    if (owner.role === 'requester') throw invalid('owner_id', 'Saved views belong to agents and administrators');
    ownerId = input.owner_id;
  }
  const filters = await checkFilters(db, input.filters ?? {});
  checkColumns(input.columns);
  await checkShare(db, actor, ownerId, input.team_id);
  const now = nowIso(db);
  return toJson(
    await transaction(db, (tx) =>
      one(
        tx
          .insert(savedViews)
          .values({
            name: input.name,
            owner_id: ownerId,
            team_id: input.team_id ?? null,
            filters: JSON.stringify(filters),
            columns: JSON.stringify(input.columns ?? DEFAULT_COLUMNS),
            column_widths: JSON.stringify(input.column_widths ?? {}),
            created_at: now,
            updated_at: now,
          })
          .returning(),
      ),
    ),
  );
}

export async function updateSavedView(
  db: Db,
  actor: Actor,
  id: number,
  input: Partial<Omit<SavedViewInput, 'owner_id'>>,
): Promise<SavedViewJson> {
  const row = await editableView(db, actor, id);
  const set: Partial<Row> = { updated_at: nowIso(db) };
  if (input.team_id !== undefined) {
    await checkShare(db, actor, row.owner_id, input.team_id);
    set.team_id = input.team_id;
  }
  if (input.name !== undefined) set.name = input.name;
  if (input.filters !== undefined) set.filters = JSON.stringify(await checkFilters(db, input.filters));
  if (input.columns !== undefined) {
    checkColumns(input.columns);
    set.columns = JSON.stringify(input.columns);
  }
  if (input.column_widths !== undefined) set.column_widths = JSON.stringify(input.column_widths);
  return toJson(
    await transaction(db, (tx) => one(tx.update(savedViews).set(set).where(eq(savedViews.id, id)).returning())),
  );
}

export async function deleteSavedView(db: Db, actor: Actor, id: number): Promise<void> {
  await editableView(db, actor, id);
  await transaction(db, (tx) => tx.delete(savedViews).where(and(eq(savedViews.id, id))));
}

/** The zod pieces a route needs to validate columns and widths (kept with the rules above). */
export const zColumn = z.enum(COLUMNS, { error: `Expected one of: ${COLUMNS.join(', ')}` });
export const zWidth = z.coerce
  .number({ error: 'Expected a number of pixels' })
  .int('Expected whole pixels')
  .min(MIN_WIDTH, `At least ${MIN_WIDTH} px`)
  .max(MAX_WIDTH, `At most ${MAX_WIDTH} px`);
