import { Hono } from 'hono';
import { lookups } from '../../domain/lookups.js';
import { revokePortalLinks } from '../../domain/portal.js';
import { unblockUser } from '../../domain/spam.js';
import { createUser, deleteUser, getUser, listUsers, searchPeoplePage, updateUser } from '../../domain/users.js';
import { PeopleOptions } from '../../views/tickets/people.js';
import { UserPage, UsersPage } from '../../views/admin/people.js';
import type { AppEnv } from '../context.js';
import {
  actorOf,
  adminOf,
  adminScreen,
  dbOf,
  isHtmx,
  noContent,
  pathId,
  queryObject,
  readBody,
  respond,
  staffOf,
  validate,
} from '../respond.js';
import { documented } from '../openapi.js';
import { CreateUserSchema, UpdateUserSchema, UserListQuery, UserPageSchema, UserSchema } from './schemas.js';

const doc = documented('Users');

export function userRoutes() {
  const app = new Hono<AppEnv>();
  app.get(
    '/',
    doc({
      summary: 'List or search users',
      description:
        'A page of users by role and `disabled`; with `q`, a people search (active people whose name or address contains it, best first). Staff only.',
      query: UserListQuery,
      ok: { 200: UserPageSchema },
      errors: [403],
    }),
    async (c) => {
      const { q, limit, offset, ...filter } = validate(UserListQuery, queryObject(c));
      const db = dbOf(c);
      const actor = actorOf(c);
      const page =
        q !== undefined
          ? await searchPeoplePage(db, actor, q, { limit, offset })
          : await listUsers(db, actor, filter, { limit, offset });
      // The people search behind the Requester, Cc and "add person" fields: htmx gets the suggestions.
      if (q !== undefined && isHtmx(c))
        return respond(c, page, { title: 'Users', view: () => <PeopleOptions users={page.users} q={q} /> });
      return respond(c, page, {
        title: 'Users',
        view: adminScreen(c, () => <UsersPage page={page} query={{ q, limit, ...filter }} />),
      });
    },
  );
  app.post(
    '/',
    doc({ summary: 'Create a user (admins)', body: CreateUserSchema, ok: { 201: UserSchema }, errors: [409] }),
    async (c) => {
      const actor = adminOf(c);
      const user = await createUser(dbOf(c), actor, await readBody(c, CreateUserSchema));
      return respond(c, user, { status: 201, title: user.email, location: `/users/${user.id}?saved` });
    },
  );
  app.get('/:id', doc({ summary: 'A user', ok: { 200: UserSchema }, errors: [403] }), async (c) => {
    const user = await getUser(dbOf(c), actorOf(c), pathId(c));
    return respond(c, user, {
      title: user.email,
      view: adminScreen(c, async () => (
        <UserPage user={user} lookups={await lookups(dbOf(c), actorOf(c), [user.id])} />
      )),
    });
  });
  app.patch(
    '/:id',
    doc({ summary: 'Change a user (admins)', body: UpdateUserSchema, ok: { 200: UserSchema }, errors: [409] }),
    async (c) => {
      const actor = adminOf(c);
      const id = pathId(c);
      return respond(c, await updateUser(dbOf(c), actor, id, await readBody(c, UpdateUserSchema)), {
        title: 'User',
        location: `/users/${id}?saved`,
      });
    },
  );
  // SPEC D3 (decision 077): a sender blocked by a Spam action is taken again.
  app.post(
    '/:id/unblock',
    doc({ summary: 'Unblock a user blocked as a spammer (admins)', ok: { 200: UserSchema }, errors: [403, 404] }),
    async (c) => {
      const id = pathId(c);
      const user = await unblockUser(dbOf(c), actorOf(c), id);
      return respond(c, user, { title: user.email, location: `/users/${id}?saved` });
    },
  );
  // SPEC C2: every portal link handed to this user so far stops working (their portal_epoch moves on).
  app.post(
    '/:id/portal-links/revoke',
    doc({ summary: 'Revoke every portal link handed to a user', ok: { 204: null } }),
    async (c) => {
      const id = pathId(c);
      await revokePortalLinks(dbOf(c), staffOf(c), id);
      return noContent(c, `/users/${id}`);
    },
  );
  app.delete(
    '/:id',
    doc({
      summary: 'Disable a user (admins)',
      description:
        'Disables the user and removes their team memberships; history keeps pointing at them. The last active admin stays (409).',
      ok: { 204: null },
      errors: [409],
    }),
    async (c) => {
      await deleteUser(dbOf(c), actorOf(c), pathId(c));
      return noContent(c, '/users');
    },
  );
  return app;
}
