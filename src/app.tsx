import { createRequire } from 'node:module';
import { requestStarted } from './db/requestLoad.js';
import { STAFF_LANDING } from './domain/tickets/builtinLists.js';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Hono, type Context } from 'hono';
import { serveStatic } from '@hono/node-server/serve-static';
import { bodyLimit } from 'hono/body-limit';
import { jsxRenderer } from 'hono/jsx-renderer';
import { secureHeaders } from 'hono/secure-headers';
import { AppError } from './domain/errors.js';
import { loadSettings } from './settings.js';
import { Layout } from './views/layout.js';
import { PortalLayout } from './views/portal.js';
import { accessLog } from './routes/access.js';
import { apiDocRoutes } from './routes/api-docs/index.js';
import { authRoutes } from './routes/auth/index.js';
import { authenticate, csrfProtection } from './routes/auth/middleware.js';
import { methodOverride } from './routes/methodOverride.js';
import { asWrite } from './db/priority.js';
import { withConfigReads } from './db/configCache.js';
import type { AppEnv, Deps } from './routes/context.js';
import { calendarRoutes } from './routes/calendars/index.js';
import { slaPolicyRoutes } from './routes/sla-policies/index.js';
import { lifecycleRoutes } from './routes/lifecycles/index.js';
import { customFieldRoutes } from './routes/custom-fields/index.js';
import { dashboardRoutes } from './routes/dashboards/index.js';
import { renderError, toAppError } from './routes/errors.js';
import { mailRoutes } from './routes/mail/index.js';
import { mailSettingsRoutes } from './routes/mail-settings/index.js';
import { outboxRoutes } from './routes/outbox/index.js';
import { isPortalPath, isPortalUpload, portalRoutes, renderPortalError } from './routes/portal/index.js';
import { requestersToPortal } from './routes/portal/boundary.js';
import { queueRoutes } from './routes/queues/index.js';
import { csatRoutes } from './routes/csat/index.js';
import { responseRoutes } from './routes/responses/index.js';
import { inZone, readMultipart } from './routes/respond.js';
import { savedViewRoutes } from './routes/saved-views/index.js';
import { scripRoutes } from './routes/scrips/index.js';
import { settingsRoutes } from './routes/settings/index.js';
import { teamRoutes } from './routes/teams/index.js';
import { templateRoutes } from './routes/templates/index.js';
import { ticketRoutes } from './routes/tickets/index.js';
import { ticketListRoutes } from './routes/tickets/list.js';
import { attachmentRoutes } from './routes/tickets/attachments.js';
import { linkRoutes } from './routes/tickets/links.js';
import { draftRoutes } from './routes/tickets/drafts.js';
import { mergeRoutes } from './routes/tickets/merge.js';
import { tagRoutes, ticketTagRoutes } from './routes/tags/index.js';
import { reportRoutes } from './routes/reports/index.js';
import { ticketTimeRoutes, timeRoutes } from './routes/time/index.js';
import { userRoutes } from './routes/users/index.js';
import { eventRoutes } from './routes/events/index.js';
import { startHub } from './events/hub.js';
import { refreshTestClock } from './domain/time/testClock.js';
import { testClockRoutes } from './routes/test-clock/index.js';
import { MAX_REPLY_FILES, PUBLIC_TYPES } from './domain/portal.js';

const staticDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../static');
const htmxFile = createRequire(import.meta.url).resolve('htmx.org/dist/htmx.min.js');
const sseFile = createRequire(import.meta.url).resolve('htmx-ext-sse/dist/sse.min.js');

/** The app factory: middleware, every route group, one error handler. */
export async function createApp(deps: Deps) {
  const app = new Hono<AppEnv>();
  const staticCache = deps.env.production ? 'public, max-age=86400' : 'no-cache';

  // The app's settings (docs/decisions/045), handed down to the routes through deps: this app's
  // own, whatever other app runs in the process. Built here unless the server gave them (it gives
  // the same object to its workers).
  deps.settings ??= await loadSettings(deps.store.db, deps.env);

  // SPEC C5: the live-update hub, one per process (src/events/hub.ts).
  deps.hub ??= await startHub(deps.store.db, {
    customerSees: (type) => (PUBLIC_TYPES as readonly string[]).includes(type),
    heartbeatMs: deps.env.EVENTS_HEARTBEAT_MS,
    maxStreamsPerUser: deps.env.EVENTS_MAX_STREAMS_PER_USER,
    maxStreams: deps.env.EVENTS_MAX_STREAMS,
    onError: (what, e) => deps.log('error', what, { error: e instanceof Error ? e.message : String(e) }),
  });
  // First: the request's id and its access line (docs/decisions/044), around everything else.
  app.use('*', accessLog(deps.log, { json: deps.env.production }));
  app.use('*', async (c, next) => {
    c.set('deps', deps);
    // Decision 098: whether a list has the process to itself (it then skips the reader threads).
    const ended = requestStarted();
    try {
      await next();
    } finally {
      ended();
    }
  });
  // SPEC D2's test clock (decision 071): each request reads the time another process may have set.
  if (deps.env.HXDESK_TEST_CLOCK)
    app.use('*', async (_c, next) => {
      await refreshTestClock(deps.store.db);
      await next();
    });
  // A request that changes something reads as a write: not held back behind lists and pages (decision 066).
  // A GET reads configuration through the process's cache, its version read once (issue 32).
  app.use('*', (c, next) =>
    c.req.method === 'GET' || c.req.method === 'HEAD' ? withConfigReads(next) : asWrite(next),
  );
  app.use(
    '*',
    jsxRenderer(({ children, title }, c) => {
      const ctx = c as Context<AppEnv>;
      const actor = ctx.get('actor');
      // The reader's zone and one "now" for every time of the page (inZone); the requester portal
      // has its own plain shell: nothing of the staff side.
      if (isPortalPath(c.req.path) || actor?.role === 'requester')
        return inZone(
          ctx,
          <PortalLayout title={title} user={actor ?? null}>
            {children}
          </PortalLayout>,
        );
      return inZone(
        ctx,
        <Layout title={title} user={actor ?? null} saved={c.req.method === 'GET' && c.req.query('saved') !== undefined}>
          {children}
        </Layout>,
      );
    }),
  );
  // Portal pages carry a secret in their address: it must not leak in a Referer (to a site a
  // message links to, or a downloaded file's), nor stay in a shared computer's cache.
  app.use('*', async (c, next) => {
    await next();
    if (!isPortalPath(c.req.path)) return;
    c.res.headers.set('Referrer-Policy', 'no-referrer');
    c.res.headers.set('Cache-Control', 'no-store');
  });
  app.use(
    '*',
    secureHeaders({
      // A header a route sets itself (the sandbox CSP on downloads) is kept, not overwritten.
      overwrite: false,
      // Our own pages' requests carry their real Origin (no-referrer makes browsers send
      // `Origin: null` on same-origin form posts); other sites still get no Referer at all.
      referrerPolicy: 'same-origin',
      contentSecurityPolicy: {
        defaultSrc: ["'self'"],
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: ["'self'", 'data:'],
        frameAncestors: ["'none'"],
        formAction: ["'self'"],
        baseUri: ["'self'"],
      },
    }),
  );
  // SPEC B1: one URL answers JSON, a page or a fragment depending on these request headers, so
  // caches (and the browser's back button) must keep the representations apart.
  app.use('*', async (c, next) => {
    await next();
    // On the response's own headers: c.header() on a finished response rebuilds it as a stream,
    // which made every answer take @hono/node-server's slow path.
    if (!c.req.path.startsWith('/static/')) c.res.headers.append('Vary', 'Accept, HX-Request');
  });

  const cacheFor = (_path: string, c: Context) => {
    c.header('Cache-Control', staticCache);
  };
  app.get(
    '/static/htmx.min.js',
    serveStatic({
      path: htmxFile,
      onFound: cacheFor,
    }),
  );
  app.get(
    '/static/htmx-sse.min.js',
    serveStatic({
      path: sseFile,
      onFound: cacheFor,
    }),
  );
  app.use(
    '/static/*',
    serveStatic({
      root: staticDir,
      rewriteRequestPath: (p) => p.replace(/^\/static/, ''),
      onFound: cacheFor,
    }),
  );

  // The unread rest of an oversized body is left on the socket: close the connection after the
  // 413 so a client does not reuse it for its next request (and see it cut off mid-way).
  // A portal reply carries files, as a mail does: up to MAX_MAIL_BYTES.
  const MAX_BODY = 1024 * 1024;
  const MAX_UPLOAD = deps.env.MAX_MAIL_BYTES;
  const sizeText = (n: number) =>
    n >= 1024 * 1024 ? `${+(n / 1024 / 1024).toFixed(1)} MiB` : `${Math.ceil(n / 1024)} KiB`;
  const tooLarge =
    (max: number) =>
    (c: Context): never => {
      c.header('Connection', 'close');
      throw new AppError('too_large', `The request body is larger than ${sizeText(max)}`);
    };
  const limit = bodyLimit({ maxSize: MAX_BODY, onError: tooLarge(MAX_BODY) });
  const uploadLimit = bodyLimit({ maxSize: MAX_UPLOAD, onError: tooLarge(MAX_UPLOAD) });
  // A staff reply or note carries files (SPEC C4): MAX_ATTACHMENT_BYTES of them, as base64 in JSON
  // (4/3 the size) or in a multipart body, plus the text. The files' own total is checked after.
  const MAX_REPLY = Math.ceil((deps.env.MAX_ATTACHMENT_BYTES * 4) / 3) + MAX_BODY;
  const isReplyUpload = (p: string) => /^\/tickets\/[^/]+\/comment$/.test(p);
  const replyLimit = bodyLimit({ maxSize: MAX_REPLY, onError: tooLarge(MAX_REPLY) });
  app.use('*', async (c, next) => {
    if (c.req.path === '/mailgate' || c.req.method === 'GET' || c.req.method === 'HEAD') return next(); // mail has its own MAX_MAIL_BYTES
    const upload = c.req.method === 'POST' && isPortalUpload(c.req.path);
    const reply = !upload && c.req.method === 'POST' && isReplyUpload(c.req.path);
    const max = upload ? MAX_UPLOAD : reply ? MAX_REPLY : MAX_BODY;
    // A declared length is checked from the header alone: hono's bodyLimit would turn the request
    // into a web stream first, which costs more than the rest of a small write. Chunked bodies
    // (no length) are counted as they stream by bodyLimit.
    const length = c.req.header('content-length');
    if (length !== undefined && c.req.header('transfer-encoding') === undefined)
      return Number(length) > max ? tooLarge(max)(c) : next();
    return (upload ? uploadLimit : reply ? replyLimit : limit)(c, next);
  });
  // A portal reply takes MAX_REPLY_FILES files: counted as the body comes in, before methodOverride
  // reads it (any other form is counted against MAX_FORM_FILES when it is read: readForm).
  app.use('*', async (c, next) => {
    if (
      c.req.method === 'POST' &&
      isPortalUpload(c.req.path) &&
      /^multipart\/form-data/i.test(c.req.header('content-type') ?? '')
    )
      await readMultipart(c, MAX_REPLY_FILES);
    return next();
  });
  // Plain HTML forms can only POST: `_method=PATCH|PUT|DELETE` re-dispatches them (works without JS).
  const isForm = (type: string | undefined) =>
    !!type && /^(application\/x-www-form-urlencoded|multipart\/form-data)/i.test(type);
  app.use('*', (c, next) =>
    c.req.method === 'POST' && c.req.path !== '/mailgate' && isForm(c.req.header('content-type'))
      ? methodOverride(app, c, next)
      : next(),
  );
  app.use('*', authenticate());
  app.use('*', csrfProtection(deps.env.PUBLIC_URL ? new URL(deps.env.PUBLIC_URL).origin : undefined));
  // SPEC D6: requesters stay in the portal (docs/decisions/050).
  app.use('*', requestersToPortal());

  app.get('/', (c) => c.redirect(c.get('actor')?.role === 'requester' ? '/portal' : STAFF_LANDING, 303));
  app.get('/favicon.ico', (c) => c.body(null, 204));
  app.route('/', authRoutes(deps));
  app.route('/', mailRoutes(deps));
  app.route('/mail-settings', mailSettingsRoutes(deps));
  app.route('/events', eventRoutes());
  app.route('/users', userRoutes());
  app.route('/teams', teamRoutes());
  app.route('/queues', queueRoutes());
  app.route('/tickets', ticketListRoutes());
  app.route('/tickets', ticketRoutes());
  app.route('/tickets', draftRoutes());
  app.route('/tickets', linkRoutes());
  app.route('/tickets', mergeRoutes());
  app.route('/tickets', ticketTagRoutes());
  app.route('/tags', tagRoutes());
  app.route('/tickets', ticketTimeRoutes());
  app.route('/time', timeRoutes());
  app.route('/attachments', attachmentRoutes());
  app.route('/custom-fields', customFieldRoutes());
  app.route('/calendars', calendarRoutes());
  app.route('/sla-policies', slaPolicyRoutes());
  app.route('/lifecycles', lifecycleRoutes());
  app.route('/saved-views', savedViewRoutes());
  app.route('/dashboards', dashboardRoutes());
  app.route('/reports', reportRoutes());
  app.route('/templates', templateRoutes());
  app.route('/responses', responseRoutes());
  app.route('/scrips', scripRoutes());
  app.route('/outbox', outboxRoutes());
  app.route('/portal', portalRoutes(deps));
  app.route('/csat', csatRoutes());
  app.route('/settings', settingsRoutes(deps));
  // SPEC D2: without HXDESK_TEST_CLOCK the route does not exist (404).
  if (deps.env.HXDESK_TEST_CLOCK) app.route('/test', testClockRoutes());
  // SPEC D5: the document of every route above, and its reference page.
  app.route('/', apiDocRoutes(app));

  // A requester meets errors in the portal's words and layout wherever they are (decision 050).
  const answerError = (c: Context<AppEnv>, e: AppError) =>
    isPortalPath(c.req.path) || c.get('actor')?.role === 'requester' ? renderPortalError(c, e) : renderError(c, e);
  app.notFound((c) => answerError(c, new AppError('not_found', `No route for ${c.req.method} ${c.req.path}`)));
  app.onError((err, c) => answerError(c, toAppError(err, c)));
  return app;
}
