import { createRequire } from 'node:module';
import { Hono } from 'hono';
import { z } from 'zod';
import { ApiDocsPage, type ApiDocument } from '../../views/apiDocs.js';
import type { AppEnv } from '../context.js';
import { ErrorBodySchema } from '../errors.js';
import { documented, openApiDocument } from '../openapi.js';
import { actorOf } from '../respond.js';

const { version } = createRequire(import.meta.url)('../../../package.json') as { version: string };

/** The OpenAPI document of `api`, the whole app (the tests check every JSON answer against it). */
export const documentOf = (api: Hono<AppEnv>) => openApiDocument(api, ErrorBodySchema, version);

/**
 * SPEC D5: `GET /openapi.json`, the OpenAPI 3.1 document of `api` (the whole app), and
 * `GET /docs/api`, the reference rendered from it. Both for anyone signed in (decision 043):
 * no route but /healthz, /login and the mail gateway answers a stranger.
 */
export function apiDocRoutes(api: Hono<AppEnv>) {
  const app = new Hono<AppEnv>();
  // Built once, on first use: the routes do not change while the app runs.
  let built: ReturnType<typeof openApiDocument> | undefined;
  const doc = () => (built ??= documentOf(api));
  app.get(
    '/openapi.json',
    documented('Operations')({
      summary: 'This document',
      description: 'The OpenAPI 3.1 description of the JSON API; readable at /docs/api.',
      ok: { 200: z.record(z.string(), z.unknown()).describe('An OpenAPI 3.1 document') },
    }),
    async (c) => {
      actorOf(c);
      return c.json(await doc());
    },
  );
  app.get('/docs/api', async (c) => {
    actorOf(c);
    return c.render(<ApiDocsPage doc={(await doc()) as unknown as ApiDocument} />, { title: 'API reference' });
  });
  return app;
}
