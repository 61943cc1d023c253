import { Hono } from 'hono';
import { z } from 'zod';
import { addMember, createTeam, deleteTeam, getTeam, listTeams, removeMember, updateTeam } from '../../domain/teams.js';
import { lookups } from '../../domain/lookups.js';
import { TeamPage, TeamsPage } from '../../views/admin/people.js';
import type { AppEnv } from '../context.js';
import { documented } from '../openapi.js';
import { CreateTeamSchema, MemberSchema, MembershipSchema, TeamSchema, UpdateTeamSchema } from './schemas.js';
import { actorOf, adminOf, adminScreen, dbOf, noContent, pathId, readBody, respond } from '../respond.js';

const doc = documented('Teams');

export function teamRoutes() {
  const app = new Hono<AppEnv>();
  app.get(
    '/',
    doc({ summary: 'List teams', ok: { 200: z.strictObject({ teams: z.array(TeamSchema) }) }, errors: [403] }),
    async (c) => {
      const teams = await listTeams(dbOf(c), actorOf(c));
      return respond(
        c,
        { teams },
        {
          title: 'Teams',
          view: adminScreen(c, async () => (
            <TeamsPage
              teams={teams}
              lookups={
                await lookups(
                  dbOf(c),
                  actorOf(c),
                  teams.flatMap((t) => t.members),
                )
              }
            />
          )),
        },
      );
    },
  );
  app.post(
    '/',
    doc({ summary: 'Create a team (admins)', body: CreateTeamSchema, ok: { 201: TeamSchema }, errors: [409] }),
    async (c) => {
      const actor = adminOf(c);
      const team = await createTeam(dbOf(c), actor, await readBody(c, CreateTeamSchema));
      return respond(c, team, { status: 201, title: team.name, location: `/teams/${team.id}?saved` });
    },
  );
  app.get('/:id', doc({ summary: 'A team', ok: { 200: TeamSchema }, errors: [403] }), async (c) => {
    const team = await getTeam(dbOf(c), actorOf(c), pathId(c));
    return respond(c, team, {
      title: team.name,
      view: adminScreen(c, async () => (
        <TeamPage team={team} lookups={await lookups(dbOf(c), actorOf(c), team.members)} />
      )),
    });
  });
  app.patch(
    '/:id',
    doc({ summary: 'Change a team (admins)', body: UpdateTeamSchema, ok: { 200: TeamSchema }, errors: [409] }),
    async (c) => {
      const actor = adminOf(c);
      const id = pathId(c);
      return respond(c, updateTeam(dbOf(c), actor, id, await readBody(c, UpdateTeamSchema)), {
        title: 'Team',
        location: `/teams/${id}?saved`,
      });
    },
  );
  app.delete(
    '/:id',
    doc({
      summary: 'Delete a team (admins)',
      description: 'Queues, tickets and dashboards of the team keep no team.',
      ok: { 204: null },
    }),
    async (c) => {
      await deleteTeam(dbOf(c), actorOf(c), pathId(c));
      return noContent(c, '/teams');
    },
  );
  app.post(
    '/:id/members',
    doc({ summary: 'Add a member (admins)', body: MemberSchema, ok: { 201: MembershipSchema }, errors: [409] }),
    async (c) => {
      const actor = adminOf(c);
      const id = pathId(c);
      const { user_id } = await readBody(c, MemberSchema);
      return respond(c, addMember(dbOf(c), actor, id, user_id), {
        status: 201,
        title: 'Member added',
        location: `/teams/${id}?saved`,
      });
    },
  );
  app.delete('/:id/members/:userId', doc({ summary: 'Remove a member (admins)', ok: { 204: null } }), async (c) => {
    const id = pathId(c);
    await removeMember(dbOf(c), actorOf(c), id, pathId(c, 'userId'));
    return noContent(c, `/teams/${id}`);
  });
  return app;
}
