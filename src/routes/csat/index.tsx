import { Hono } from 'hono';
import { z } from 'zod';
import { csatLink, rateByLink } from '../../domain/csat.js';
import { CsatPage } from '../../views/csat.js';
import type { AppEnv } from '../context.js';
import { documented } from '../openapi.js';
import { dbOf, notifyOf, readBody, respond, validate } from '../respond.js';
import { CsatLinkSchema, RatedSchema, RateQuerySchema, RateSchema } from './schemas.js';

const doc = documented('Satisfaction');
const TOKEN = { token: z.string().describe("The rating link's signed secret") };

// SPEC D4 (decision 082): `/csat/:token`, the rating link of a "Resolved" mail. Public: the
// signed token is the credential (src/routes/auth/middleware.ts lets the path through), and
// the form posts back to the same link, so a POST is bound to it. GET and HEAD record nothing.

export function csatRoutes() {
  const app = new Hono<AppEnv>();
  app.get(
    '/:token',
    doc({
      summary: 'A rating link (records nothing)',
      description:
        'Shows the rating form, `?rating=` pre-selected; GET and HEAD never record a rating (mail scanners open links). 404: a forged or expired link; 410: the ticket reopened since.',
      public: true,
      path: TOKEN,
      query: RateQuerySchema,
      ok: { 200: CsatLinkSchema },
      errors: [410],
    }),
    async (c) => {
      const token = c.req.param('token');
      const q = validate(RateQuerySchema, c.req.query());
      const view = await csatLink(dbOf(c), token);
      return respond(c, view, {
        title: 'How did we do?',
        view: (v) => (
          <CsatPage
            view={v}
            action={`/csat/${token}`}
            selected={q.rating ?? v.rating?.rating}
            thanks={q.rated !== undefined}
          />
        ),
      });
    },
  );
  app.post(
    '/:token',
    doc({
      summary: 'Rate a resolve by its link',
      description:
        'Records a `Rating` entry (staff only) and makes it the current rating of this resolve; rating again replaces it. 410 once the ticket reopened.',
      public: true,
      path: TOKEN,
      body: RateSchema,
      ok: { 201: RatedSchema },
      errors: [410],
    }),
    async (c) => {
      const token = c.req.param('token');
      const input = await readBody(c, RateSchema);
      return respond(c, rateByLink(dbOf(c), token, input, notifyOf(c)), {
        status: 201,
        title: 'Thank you',
        location: `/csat/${token}?rated`,
      });
    },
  );
  return app;
}
