import { z } from 'zod';
import { zTimestamp } from '../openapi.js';

/** POST /test/clock (SPEC D2, HXDESK_TEST_CLOCK=1 only): the instant every process of the database reads from now on. */
export const SetTestClockSchema = z.strictObject({
  now: z.iso
    .datetime({ offset: true, error: 'Expected an ISO 8601 instant such as 2026-12-23T15:00:00Z' })
    .describe('The new time; forwards only (an earlier instant than the clock is 422, the same one is fine)'),
});

export const TestClockSchema = z.strictObject({ now: zTimestamp }).meta({ id: 'TestClock' });
