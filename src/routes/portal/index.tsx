import { Hono, type Context } from 'hono';
import { z } from 'zod';
import { isStaff } from '../../domain/actor.js';
import { AppError } from '../../domain/errors.js';
import {
  grantFromSession,
  grantFromToken,
  MAX_REPLY_FILES,
  NEW_LINK_HINT,
  portalAttachment,
  portalReply,
  PORTAL_PAGE,
  PortalRefused,
  portalTickets,
  portalView,
  type PortalGrant,
  type PortalReplyInput,
} from '../../domain/portal.js';
import { PortalErrorPage, PortalHistory, PortalListPage, PortalLive, PortalTicketPage } from '../../views/portal.js';
import type { AppEnv, Deps } from '../context.js';
import { documented } from '../openapi.js';
import {
  PortalListQuerySchema,
  PortalListSchema,
  PortalTransactionSchema,
  PortalViewSchema,
  ReplySchema,
} from './schemas.js';
import { portalAccountRoutes } from './account.js';
import { inWordsError, renderError } from '../errors.js';
import { liveStream, stillSignedIn } from '../events/index.js';
import { LiveQuerySchema } from '../tickets/schemas.js';
import { actorOf, dbOf, isHtmx, notifyOf, pathId, respond, validate, wantsHtml } from '../respond.js';
import { readWithFiles } from './files.js';

type C = Context<AppEnv>;

// SPEC C2: the requester portal. `/portal/:token…` is reached with a signed link and no session
// (src/routes/auth/middleware.ts lets exactly these paths through); `/portal` and
// `/portal/tickets/:id…` are for a customer signed in with a password.

/** Paths of the portal, for the layout, the headers and the error page. */
export const isPortalPath = (path: string) => /^\/portal(\/|$)/.test(path) || /^\/csat\/[^/]+$/.test(path);
/** The reply routes, which take files: their bodies may be as large as a mail (MAX_MAIL_BYTES). */
export const isPortalUpload = (path: string) =>
  /^\/portal\/(?:tickets\/[^/]+|[^/]+)\/reply$/.test(path) || path === '/portal/requests';

const doc = documented('Portal');
const TOKEN = { token: z.string().describe("The signed link's secret") };
const DOWNLOAD = { 200: { media: 'application/octet-stream', description: "The file's bytes, always as a download" } };

/** The reply in whichever shape it came: JSON, urlencoded or multipart with files. */
async function readReply(c: C): Promise<PortalReplyInput> {
  const { input, attachments } = await readWithFiles(c, ReplySchema);
  return { body: input.body ?? '', attachments };
}

/**
 * A link is not a cookie, but a page of another site must not post to it either: an Origin
 * (or Sec-Fetch-Site) naming another site is refused. Browsers send `Origin: null` from our own
 * no-referrer pages, with `Sec-Fetch-Site: same-origin`, which no page can forge.
 */
function refuseCrossSite(c: C): void {
  const origin = c.req.header('origin');
  const site = c.req.header('sec-fetch-site');
  const { env } = c.get('deps');
  const own = [new URL(c.req.url).origin, ...(env.PUBLIC_URL ? [new URL(env.PUBLIC_URL).origin] : [])];
  const foreign =
    origin !== undefined
      ? origin === 'null'
        ? site !== 'same-origin'
        : !own.includes(origin)
      : site !== undefined && site !== 'same-origin' && site !== 'none';
  if (foreign) throw new AppError('forbidden', 'Cross-site request refused');
}

async function page(c: C, grant: PortalGrant, base: string) {
  const view = await portalView(dbOf(c), grant);
  const maxBytes = c.get('deps').env.MAX_MAIL_BYTES;
  return respond(c, view, {
    title: view.ticket.subject,
    view: () =>
      isHtmx(c) ? (
        <PortalHistory view={view} base={base} />
      ) : (
        <PortalTicketPage view={view} base={base} maxBytes={maxBytes} maxFiles={MAX_REPLY_FILES} />
      ),
  });
}

/** `…/live?after=` (SPEC C5): the public entries after the page's last, and the ticket now. */
async function live(c: C, grant: PortalGrant, base: string) {
  const { after } = validate(LiveQuerySchema, c.req.query());
  const view = await portalView(dbOf(c), grant, { after });
  return respond(c, view, { title: view.ticket.subject, view: () => <PortalLive view={view} base={base} /> });
}

/**
 * `…/events` (SPEC C5): the page's live stream, this ticket's public entries only (the hub gives
 * a customer's stream nothing else). `still` says whether the grant still holds: checked with
 * every heartbeat, so a revoked link or a person taken off the ticket stops hearing of it.
 */
function events(c: C, grant: PortalGrant, still: () => Promise<boolean>) {
  const u = grant.user;
  return liveStream(
    c,
    { user: { id: u.id, name: u.name || u.email }, staff: false, onlyTicket: grant.ticketId },
    still,
  );
}
const holds = (p: Promise<unknown>) =>
  p.then(
    () => true,
    (e) => {
      if (e instanceof AppError) return false;
      throw e;
    },
  );

async function reply(c: C, grant: PortalGrant, base: string) {
  refuseCrossSite(c);
  const input = await readReply(c);
  const { store, env } = c.get('deps');
  const db = store.db;
  // The grant is checked again inside the unit of work (portalReply), and the person's brakes counted there.
  const transaction = await portalReply(
    db,
    grant,
    input,
    {
      maxBytes: env.MAX_MAIL_BYTES,
      messagesPerHour: env.MAIL_SENDER_MAX_PER_HOUR,
      bytesPerDay: env.PORTAL_MAX_BYTES_PER_DAY,
    },
    notifyOf(c),
  );
  return respond(
    c,
    { transaction },
    {
      status: 201,
      title: 'Sent',
      location: base,
      view: async () => <PortalHistory view={await portalView(db, grant)} base={base} />,
    },
  );
}

async function download(c: C, grant: PortalGrant) {
  const a = await portalAttachment(dbOf(c), grant, pathId(c, 'attachmentId'));
  return c.body(new Uint8Array(a.content), 200, {
    'Content-Type': a.content_type,
    'Content-Disposition': `attachment; filename="${a.filename.replace(/[^\x20-\x7e]|["\\]/g, '_')}"; filename*=UTF-8''${encodeURIComponent(a.filename)}`,
    'Content-Security-Policy': "sandbox; default-src 'none'",
  });
}

/** The signed-in customer's grant for /portal/tickets/:id; staff are sent to the ticket page instead. */
const sessionGrant = (c: C) => grantFromSession(dbOf(c), actorOf(c), pathId(c));

export function portalRoutes(deps: Deps) {
  const app = new Hono<AppEnv>();

  app.get(
    '/',
    doc({
      summary: 'Your requests (customers)',
      description: `Every status but deleted, newest first, ${PORTAL_PAGE} a page. Staff are sent to /tickets (303).`,
      query: PortalListQuerySchema,
      ok: { 200: PortalListSchema, 303: null },
    }),
    async (c) => {
      const actor = actorOf(c);
      if (isStaff(actor)) return c.redirect('/tickets', 303);
      const { offset } = validate(PortalListQuerySchema, c.req.query());
      const list = await portalTickets(dbOf(c), actor, { offset });
      return respond(c, list, { title: 'Your requests', view: () => <PortalListPage list={list} /> });
    },
  );
  // SPEC D6: settings and a new request, before `/:token` (decision 050).
  app.route('/', portalAccountRoutes(deps));
  app.get('/tickets', (c) => c.redirect('/portal', 303));
  app.get(
    '/tickets/:id',
    doc({
      summary: 'One of your requests (customers)',
      description: 'Staff are sent to the ticket (303).',
      ok: { 200: PortalViewSchema, 303: null },
    }),
    async (c) => {
      const actor = actorOf(c);
      if (isStaff(actor)) return c.redirect(`/tickets/${pathId(c)}`, 303);
      return page(c, await sessionGrant(c), `/portal/tickets/${pathId(c)}`);
    },
  );
  app.post(
    '/tickets/:id/reply',
    doc({
      summary: 'Reply to one of your requests',
      body: ReplySchema,
      files: true,
      ok: { 201: z.strictObject({ transaction: PortalTransactionSchema }) },
      errors: [403, 429],
    }),
    async (c) => {
      const id = pathId(c);
      return reply(c, await sessionGrant(c), `/portal/tickets/${id}`);
    },
  );
  app.get(
    '/tickets/:id/attachments/:attachmentId',
    doc({ summary: 'A file of one of your requests', ok: DOWNLOAD }),
    async (c) => download(c, await sessionGrant(c)),
  );
  app.get(
    '/tickets/:id/live',
    doc({ summary: 'What came after an entry', query: LiveQuerySchema, ok: { 200: PortalViewSchema } }),
    async (c) => live(c, await sessionGrant(c), `/portal/tickets/${pathId(c)}`),
  );
  app.get(
    '/tickets/:id/events',
    doc({
      summary: 'Live updates of one of your requests',
      ok: {
        200: {
          media: 'text/event-stream',
          description: "This ticket's public entries as they come (as GET /events)",
          schema: { type: 'string' },
        },
      },
      errors: [429, 503],
    }),
    async (c) => {
      const grant = await sessionGrant(c);
      const signedIn = stillSignedIn(c);
      const db = dbOf(c);
      const actor = actorOf(c);
      return events(
        c,
        grant,
        async () => (await signedIn()) && (await holds(grantFromSession(db, actor, grant.ticketId))),
      );
    },
  );

  app.get(
    '/:token',
    doc({
      summary: 'A request, by its portal link',
      public: true,
      path: TOKEN,
      ok: { 200: PortalViewSchema },
      errors: [403],
    }),
    async (c) => page(c, await grantFromToken(dbOf(c), c.req.param('token')), `/portal/${c.req.param('token')}`),
  );
  app.post(
    '/:token/reply',
    doc({
      summary: 'Reply by a portal link',
      public: true,
      path: TOKEN,
      body: ReplySchema,
      files: true,
      ok: { 201: z.strictObject({ transaction: PortalTransactionSchema }) },
      errors: [429],
    }),
    async (c) => reply(c, await grantFromToken(dbOf(c), c.req.param('token')), `/portal/${c.req.param('token')}`),
  );
  app.get(
    '/:token/attachments/:attachmentId',
    doc({ summary: 'A file, by a portal link', public: true, path: TOKEN, ok: DOWNLOAD, errors: [403] }),
    async (c) => download(c, await grantFromToken(dbOf(c), c.req.param('token'))),
  );
  app.get(
    '/:token/live',
    doc({
      summary: 'What came after an entry, by a portal link',
      public: true,
      path: TOKEN,
      query: LiveQuerySchema,
      ok: { 200: PortalViewSchema },
      errors: [403],
    }),
    async (c) => live(c, await grantFromToken(dbOf(c), c.req.param('token')), `/portal/${c.req.param('token')}`),
  );
  app.get(
    '/:token/events',
    doc({
      summary: 'Live updates, by a portal link',
      public: true,
      path: TOKEN,
      ok: {
        200: {
          media: 'text/event-stream',
          description: "This ticket's public entries as they come (as GET /events)",
          schema: { type: 'string' },
        },
      },
      errors: [403, 429, 503],
    }),
    async (c) => {
      const db = dbOf(c);
      const token = c.req.param('token');
      // The link is the credential: it must still be valid (not expired, not revoked) at each heartbeat.
      return events(c, await grantFromToken(db, token), () => holds(grantFromToken(db, token)));
    },
  );
  return app;
}

/** The way back from an error under /portal/<token or tickets/id>/…: that ticket's page. */
function backLink(path: string): string | undefined {
  const m = /^(\/portal\/(?:tickets\/\d+|[^/]+))\/(?:reply|attachments\/[^/]+)$/.exec(path);
  return m ? m[1] : undefined;
}

const HEADLINES: Partial<Record<AppError['code'], string>> = {
  not_found: 'Not found',
  gone: 'This request was reopened',
  forbidden: 'Not allowed',
  too_large: 'Too large',
  validation_failed: 'Please check your message',
  rate_limited: 'Too many messages',
  unsupported_media_type: 'Cannot read this',
  invalid_json: 'Cannot read this',
};

/**
 * Errors under /portal: JSON, htmx fragments and the sign-in redirect as everywhere (SPEC B5);
 * a page in the portal's own words for a browser — a refused link says what happened and how to
 * get a new one. Never a stack trace: `toAppError` has made every failure an AppError already.
 */
export function renderPortalError(c: C, err: AppError): Response | Promise<Response> {
  if (!wantsHtml(c) || isHtmx(c) || err.code === 'unauthenticated') return renderError(c, err);
  const e = inWordsError(err); // SPEC D6: each refused field in words, by its label
  c.status(e.status as 400);
  if (e instanceof PortalRefused)
    return c.render(<PortalErrorPage status={e.status} headline={e.headline} message={NEW_LINK_HINT} />, {
      title: e.headline,
    });
  const headline = HEADLINES[e.code] ?? 'Something went wrong';
  return c.render(
    <PortalErrorPage
      status={e.status}
      headline={headline}
      message={e.message}
      details={e.details}
      back={backLink(c.req.path)}
    />,
    { title: headline },
  );
}
