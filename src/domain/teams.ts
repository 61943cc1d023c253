import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import { type Conn, type Db, prepared } from '../db/client.js';
import { dashboards, queues, teamMembers, teams, tickets } from '../db/schema.js';
import { type Actor, nowIso, requireAdmin, requireStaff } from './actor.js';
import { invalid, notFound } from './errors.js';
import { unique } from './unique.js';
import { getUserRow } from './users.js';

type TeamRow = typeof teams.$inferSelect;
export interface TeamJson { id: number; name: string; description: string; members: number[]; created_at: string; updated_at: string }

function withMembers(db: Db, rows: TeamRow[]): TeamJson[] {
  if (rows.length === 0) return [];
  const members = db.select().from(teamMembers).where(inArray(teamMembers.team_id, rows.map((r) => r.id)))
    .orderBy(asc(teamMembers.user_id)).all();
  return rows.map((t) => ({
    id: t.id, name: t.name, description: t.description,
    members: members.filter((m) => m.team_id === t.id).map((m) => m.user_id),
    created_at: t.created_at, updated_at: t.updated_at,
  }));
}

const teamById = prepared((db) => db.select().from(teams).where(eq(teams.id, sql.placeholder('id'))).prepare());
export const getTeamRow = (db: Conn, id: number): TeamRow | undefined => teamById(db).get({ id });

export function teamExists(db: Conn, id: number): boolean {
  return getTeamRow(db, id) !== undefined;
}

export function listTeams(db: Db, actor: Actor): TeamJson[] {
  requireStaff(actor);
  return withMembers(db, db.select().from(teams).orderBy(asc(teams.name)).all());
}

export function getTeam(db: Db, actor: Actor, id: number): TeamJson {
  requireStaff(actor);
  const row = db.select().from(teams).where(eq(teams.id, id)).get();
  if (!row) throw notFound('Team', id);
  return withMembers(db, [row])[0];
}

export interface TeamInput { name: string; description?: string }

export function createTeam(db: Db, actor: Actor, input: TeamInput): TeamJson {
  requireAdmin(actor);
  const now = nowIso();
  const row = unique(input, () => db.insert(teams).values({ name: input.name, description: input.description ?? '', created_at: now, updated_at: now }).returning().get());
  return withMembers(db, [row])[0];
}

export function updateTeam(db: Db, actor: Actor, id: number, input: Partial<TeamInput>): TeamJson {
  requireAdmin(actor);
  getTeam(db, actor, id);
  const row = unique(input, () => db.update(teams).set({ ...input, updated_at: nowIso() }).where(eq(teams.id, id)).returning().get());
  return withMembers(db, [row])[0];
}

/** SPEC B3: deleting a team clears team_id on queues, tickets and dashboards. */
export function deleteTeam(db: Db, actor: Actor, id: number): void {
  requireAdmin(actor);
  getTeam(db, actor, id);
  db.transaction((tx) => {
    tx.update(queues).set({ team_id: null }).where(eq(queues.team_id, id)).run();
    tx.update(tickets).set({ team_id: null }).where(eq(tickets.team_id, id)).run();
    tx.update(dashboards).set({ team_id: null }).where(eq(dashboards.team_id, id)).run();
    tx.delete(teams).where(eq(teams.id, id)).run();
  });
}

const memberIs = (teamId: number, userId: number) => and(eq(teamMembers.team_id, teamId), eq(teamMembers.user_id, userId));

export interface MembershipJson { team_id: number; user_id: number; created_at: string }

export function addMember(db: Db, actor: Actor, teamId: number, userId: number): MembershipJson {
  requireAdmin(actor);
  getTeam(db, actor, teamId);
  const user = getUserRow(db, userId);
  if (!user) throw invalid('user_id', `User ${userId} does not exist`);
  if (user.disabled) throw invalid('user_id', `User ${userId} is disabled`);
  return unique({ team_id: teamId, user_id: userId },
    () => db.insert(teamMembers).values({ team_id: teamId, user_id: userId, created_at: nowIso() }).returning().get());
}

export function removeMember(db: Db, actor: Actor, teamId: number, userId: number): void {
  requireAdmin(actor);
  getTeam(db, actor, teamId);
  const res = db.delete(teamMembers).where(memberIs(teamId, userId)).run();
  if (res.changes === 0) throw notFound(`User ${userId} in team`, teamId);
}
