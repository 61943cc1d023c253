import { Hono } from 'hono';
import { z } from 'zod';
import {
  createCalendar,
  deleteCalendar,
  explainCalendar,
  getCalendar,
  listCalendars,
  updateCalendar,
} from '../../domain/time/calendars.js';
import { CalendarPage, CalendarsPage, ExplainResult } from '../../views/admin/calendars.js';
import type { AppEnv } from '../context.js';
import { documented } from '../openapi.js';
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
  validate,
} from '../respond.js';
import {
  CalendarSchema,
  CreateCalendarSchema,
  ExplainQuerySchema,
  ExplanationSchema,
  UpdateCalendarSchema,
} from './schemas.js';

const doc = documented('Calendars');

export function calendarRoutes() {
  const app = new Hono<AppEnv>();
  app.get(
    '/',
    doc({
      summary: 'List calendars (staff)',
      ok: { 200: z.strictObject({ calendars: z.array(CalendarSchema) }) },
      errors: [403],
    }),
    async (c) => {
      const calendars = await listCalendars(dbOf(c), actorOf(c));
      return respond(
        c,
        { calendars },
        { title: 'Calendars', view: adminScreen(c, () => <CalendarsPage calendars={calendars} />) },
      );
    },
  );
  app.post(
    '/',
    doc({
      summary: 'Create a calendar (admins)',
      body: CreateCalendarSchema,
      ok: { 201: CalendarSchema },
      errors: [409],
    }),
    async (c) => {
      const actor = adminOf(c);
      const cal = await createCalendar(dbOf(c), actor, await readBody(c, CreateCalendarSchema));
      return respond(c, cal, { status: 201, title: cal.name, location: `/calendars/${cal.id}?saved` });
    },
  );
  app.get('/:id', doc({ summary: 'A calendar (staff)', ok: { 200: CalendarSchema }, errors: [403] }), async (c) => {
    const cal = await getCalendar(dbOf(c), actorOf(c), pathId(c));
    return respond(c, cal, {
      title: cal.name,
      view: adminScreen(c, () => <CalendarPage calendar={cal} />),
    });
  });
  app.get(
    '/:id/explain',
    doc({
      summary: 'When n business minutes after an instant end (staff)',
      description:
        'The due time a target of `minutes` business minutes from `start` gets under this calendar, and the stretches of business time counted.',
      query: ExplainQuerySchema,
      ok: { 200: ExplanationSchema },
      errors: [403],
    }),
    async (c) => {
      const id = pathId(c);
      const q = validate(ExplainQuerySchema, queryObject(c));
      const explanation = await explainCalendar(dbOf(c), actorOf(c), id, q);
      return respond(c, explanation, {
        title: 'Explain a due time',
        view: isHtmx(c)
          ? (e) => <ExplainResult explanation={e} />
          : adminScreen(c, async () => (
              <CalendarPage calendar={await getCalendar(dbOf(c), actorOf(c), id)} explanation={explanation} />
            )),
      });
    },
  );
  app.patch(
    '/:id',
    doc({
      summary: 'Change a calendar (admins)',
      body: UpdateCalendarSchema,
      ok: { 200: CalendarSchema },
      errors: [409],
    }),
    async (c) => {
      const actor = adminOf(c);
      const id = pathId(c);
      return respond(c, updateCalendar(dbOf(c), actor, id, await readBody(c, UpdateCalendarSchema)), {
        title: 'Calendar',
        location: `/calendars/${id}?saved`,
      });
    },
  );
  app.delete(
    '/:id',
    doc({
      summary: 'Delete a calendar (admins)',
      description: 'Refused (409) while an SLA policy counts in it.',
      ok: { 204: null },
      errors: [409],
    }),
    async (c) => {
      await deleteCalendar(dbOf(c), adminOf(c), pathId(c));
      return noContent(c, '/calendars');
    },
  );
  return app;
}
