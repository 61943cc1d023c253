import type { Context, MiddlewareHandler } from 'hono';
import { AppError } from '../../domain/errors.js';
import { grantFromSession } from '../../domain/portal.js';
import type { AppEnv } from '../context.js';
import { isHtmx, wantsHtml } from '../respond.js';

// SPEC D6, docs/decisions/050: requesters stay in the portal. A requester's browser asking for a
// staff page is sent to the matching portal page; a staff form posted by one is refused before
// it is read. This is the screens' half: what the staff routes answer a requester in JSON is
// shaped by the domain (src/domain/customerView.ts), whichever way they ask.

/** Paths a requester's browser may still use outside /portal: signing in and out, files, assets. */
const OPEN = [
  /^\/$/,
  /^\/login$/,
  /^\/logout$/,
  /^\/healthz$/,
  /^\/static\//,
  /^\/favicon\.ico$/,
  /^\/attachments\/[^/]+$/,
  /^\/csat\/[^/]+$/, // SPEC D4: a rating link (decision 082)
];
const isOpen = (path: string) => path.startsWith('/portal') || OPEN.some((re) => re.test(path));

/** The portal page that matches a staff page: a ticket they may see, their settings, a new request, or their list. */
async function portalPageFor(c: Context<AppEnv>, path: string): Promise<string> {
  if (/^\/settings(?:\/|$)/.test(path)) return '/portal/settings';
  if (path === '/tickets/new') return '/portal/new';
  const ticket = /^\/tickets\/(\d{1,15})(?:\/|$)/.exec(path);
  if (ticket) {
    const id = Number(ticket[1]);
    const db = c.get('deps').store.db;
    const actor = c.get('actor')!;
    // The domain's own check: their ticket (requester or Cc), not deleted; anything else is the list.
    const granted = await grantFromSession(db, actor, id).then(
      () => true,
      (e) => {
        if (e instanceof AppError) return false;
        throw e;
      },
    );
    if (granted) return `/portal/tickets/${id}`;
  }
  return '/portal';
}

export function requestersToPortal(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const actor = c.get('actor');
    if (actor?.role !== 'requester' || !wantsHtml(c) || isOpen(c.req.path)) return next();
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD')
      throw new AppError('forbidden', 'This form is for staff. Your requests are in the portal: /portal');
    const to = await portalPageFor(c, c.req.path);
    if (isHtmx(c)) {
      c.header('HX-Redirect', to);
      return c.body(null, 200);
    }
    return c.redirect(to, 303);
  };
}
