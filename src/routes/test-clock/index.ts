import { Hono } from 'hono';
import { setTestClock } from '../../domain/time/testClock.js';
import type { AppEnv } from '../context.js';
import { documented } from '../openapi.js';
import { actorOf, dbOf, readBody, respond } from '../respond.js';
import { SetTestClockSchema, TestClockSchema } from './schemas.js';

const doc = documented('Test clock');

/** SPEC D2: POST /test/clock, mounted only with HXDESK_TEST_CLOCK=1 (decision 071). */
export function testClockRoutes() {
  const app = new Hono<AppEnv>();
  app.post(
    '/clock',
    doc({
      summary: 'Set the test clock (admins; HXDESK_TEST_CLOCK=1 only)',
      description:
        'Sets the time the whole server — every process of its database — reads, until the next call. Forwards only. Timers that fall due by it fire within 2 s.',
      body: SetTestClockSchema,
      ok: { 200: TestClockSchema },
      errors: [403],
    }),
    async (c) => {
      const input = await readBody(c, SetTestClockSchema);
      return respond(c, await setTestClock(dbOf(c), actorOf(c), input.now), { title: 'Test clock' });
    },
  );
  return app;
}
