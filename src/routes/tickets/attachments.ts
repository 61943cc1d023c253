import { Hono } from 'hono';
import { getAttachment } from '../../domain/tickets/read.js';
import type { AppEnv } from '../context.js';
import { documented } from '../openapi.js';
import { actorOf, dbOf, pathId } from '../respond.js';

/** GET /attachments/:id — always a download (never rendered inline by the browser). */
export function attachmentRoutes() {
  const app = new Hono<AppEnv>();
  app.get(
    '/:id',
    documented('Attachments')({
      summary: 'Download a file',
      description: "Always a download, with the file's own `Content-Type`.",
      ok: { 200: { media: 'application/octet-stream', description: "The file's bytes" } },
    }),
    async (c) => {
      const a = await getAttachment(dbOf(c), actorOf(c), pathId(c));
      return c.body(new Uint8Array(a.content), 200, {
        'Content-Type': a.content_type,
        'Content-Disposition': `attachment; filename="${a.filename.replace(/[^\x20-\x7e]|["\\]/g, '_')}"; filename*=UTF-8''${encodeURIComponent(a.filename)}`,
        'Content-Security-Policy': "sandbox; default-src 'none'",
        'Cache-Control': 'private, max-age=3600',
      });
    },
  );
  return app;
}
