import { Hono, type Context } from 'hono';
import { lookups } from '../../domain/lookups.js';
import { isAdmin } from '../../domain/actor.js';
import { addTimeEntry } from '../../domain/timeWorked/entries.js';
import { listTime, periodPages } from '../../domain/timeWorked/week.js';
import { History, Properties } from '../../views/tickets/show.js';
import { WeekPage } from '../../views/timeWorked.js';
import type { AppEnv } from '../context.js';
import { documented } from '../openapi.js';
import { actorOf, dbOf, notifyOf, pathId, queryObject, readBody, respond, validate } from '../respond.js';
import { pageProps } from '../tickets/props.js';
import { AddTimeSchema, TimeEntrySchema, TimeListSchema, TimeQuerySchema } from './schemas.js';

// SPEC D4 time worked (decision 081): POST /tickets/:id/time (an entry with its TimeWorked
// history entry) and GET /time (one person's entries in a period; the "My week" page).

type C = Context<AppEnv>;
const doc = documented('Time worked');

/** After an entry on the ticket page (htmx): the properties panel (its total), and the history with the new entry. */
async function timeAdded(c: C, id: number) {
  const p = await pageProps(c, actorOf(c), id);
  return (
    <>
      <Properties p={p} />
      <History p={p} oob />
    </>
  );
}

/** POST /tickets/:id/time, mounted under /tickets. */
export function ticketTimeRoutes() {
  const app = new Hono<AppEnv>();
  app.post(
    '/:id/time',
    doc({
      summary: 'Enter time worked on a ticket (staff)',
      description:
        'A `TimeWorked` history entry (by the one who worked) that runs scrips, and the ticket’s `time_worked_minutes` grows by `minutes` (a negative correction shrinks it, never below 0), in one unit of work. `user_id` other than yours: administrators only (403). `worked_on` in the future, or minutes 0 or past a day: 422.',
      body: AddTimeSchema,
      ok: { 201: TimeEntrySchema },
      errors: [403, 404, 409],
    }),
    async (c) => {
      const id = pathId(c);
      const input = await readBody(c, AddTimeSchema);
      const { entry } = await addTimeEntry(dbOf(c), actorOf(c), id, input, notifyOf(c));
      return respond(c, entry, {
        status: 201,
        title: `#${id}`,
        location: `/tickets/${id}`,
        view: () => timeAdded(c, id),
      });
    },
  );
  return app;
}

/** GET /time. */
export function timeRoutes() {
  const app = new Hono<AppEnv>();
  app.get(
    '/',
    doc({
      summary: 'Time worked in a period: “My week” (staff)',
      description:
        'One person’s entries with `worked_on` in `[from, to)`, by day, and their sum. Default: yours, the current ISO week (Monday to Sunday) in your time zone. Agents see their own only (403); administrators anyone’s.',
      query: TimeQuerySchema,
      ok: { 200: TimeListSchema },
      errors: [403],
    }),
    async (c) => {
      const actor = actorOf(c);
      const query = validate(TimeQuerySchema, queryObject(c));
      const list = await listTime(dbOf(c), actor, query);
      return respond(c, list, {
        title: 'My week',
        view: async () => {
          const l = await lookups(dbOf(c), actor, [list.user_id]);
          const who = l.users.find((u) => u.id === list.user_id);
          const staff = isAdmin(actor) ? l.users.filter((u) => u.role !== 'requester' && !u.disabled) : undefined;
          return (
            <WeekPage
              {...periodPages(list)}
              list={list}
              whose={who?.name || who?.email || `user #${list.user_id}`}
              own={list.user_id === actor.id}
              staff={staff}
            />
          );
        },
      });
    },
  );
  return app;
}
