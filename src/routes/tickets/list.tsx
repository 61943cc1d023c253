import { Hono, type Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { BULK_MAX_IDS, bulkSummary, bulkUpdateTickets } from '../../domain/tickets/bulk.js';
import { AppError } from '../../domain/errors.js';
import { DEFAULT_COLUMNS } from '../../domain/savedViews.js';
import { effectiveFilter, listWithRequesters, liveRows } from '../../domain/tickets/list.js';
import { firstRunState } from '../../domain/firstRun.js';
import { nestFilterParams, TicketListQuerySchema } from '../../domain/tickets/query.js';
import { LiveRows, TicketListPage, TicketListRegion } from '../../views/tickets/list.js';
import { BulkDeleteQuestion } from '../../views/tickets/bulkBar.js';
import type { AppEnv } from '../context.js';
import {
  actorOf,
  dbOf,
  inZone,
  isHtmx,
  notifyOf,
  wantsHtml,
  queryObject,
  readBody,
  readForm,
  respond,
  validate,
} from '../respond.js';
import { canonicalListUrl, listProps, sameColumns } from './props.js';
import {
  BulkResultsSchema,
  BulkUpdateSchema,
  ColumnsParamSchema,
  LiveIdsSchema,
  LiveRowsSchema,
  TicketListSchema,
} from './schemas.js';
import { documented } from '../openapi.js';
import { z } from 'zod';

type C = Context<AppEnv>;
const doc = documented('Tickets');

// The ticket list (SPEC B4, C4): one URL answers the page, its region for htmx, or JSON; and the
// bulk change of the tickets picked on it. The routes of one ticket are in ./index.tsx.

/** The bulk form's summary, carried over its redirect for one request. */
const FLASH = 'hx_list_summary';
const FLASH_OPTIONS = { path: '/tickets', httpOnly: true, sameSite: 'Lax', maxAge: 60 } as const;
const safeDecode = (s: string) => {
  try {
    return decodeURIComponent(s);
  } catch {
    return undefined;
  }
};

/** Where a refused bulk form goes back to: its own return_to when it is a query string, else the list. */
async function formReturnTo(c: C): Promise<string> {
  const v = (await readForm(c).catch(() => ({}) as Record<string, unknown>)).return_to;
  return typeof v === 'string' && /^(\?[^\x00-\x1f\x7f#]*)?$/.test(v) && v.length <= 4000 ? v : '';
}

/** GET /tickets (the list, its page or region) and PATCH /tickets (one change to many tickets). */
export function ticketListRoutes() {
  const app = new Hono<AppEnv>();

  app.get(
    '/',
    doc({
      summary: 'List tickets',
      description:
        'Filters, sort and paging (the list is capped by `limit`). `cf.<key>=<value>` filters by a custom field (several combine with AND). With `live_ids` (a live list asking about the tickets its event stream named) the answer is `LiveRows` instead.',
      query: TicketListQuerySchema.extend({
        columns: ColumnsParamSchema.optional(),
        live_ids: LiveIdsSchema.optional(),
      }),
      ok: { 200: z.union([TicketListSchema, LiveRowsSchema]) },
      errors: [403, 404],
    }),
    async (c) => {
      const { columns, live_ids: liveIds, ...params } = queryObject(c);
      const query = validate(TicketListQuerySchema, nestFilterParams(params));
      const chosen = columns === undefined ? undefined : validate(ColumnsParamSchema, columns, 'columns');
      const actor = actorOf(c);
      const filters = await effectiveFilter(dbOf(c), actor, query);
      // SPEC C5: the list page asks about the tickets its live stream named, under its own query.
      if (liveIds !== undefined) {
        const ids = validate(LiveIdsSchema, liveIds, 'live_ids');
        const live = await liveRows(dbOf(c), actor, filters, ids);
        return respond(c, live, {
          title: 'Tickets',
          view: async () => (
            <LiveRows
              rows={live.rows}
              p={
                await listProps(c, actor, query, chosen, {
                  filters,
                  list: { tickets: [], total: 0, total_exact: true, limit: 0, offset: 0 },
                })
              }
            />
          ),
        });
      }
      // The JSON list is every ticket in full.
      if (!wantsHtml(c)) return respond(c, await listWithRequesters(dbOf(c), actor, filters, 'all'));
      // The page (staff's: a requester is sent to the portal before) reads only what its rows show,
      // its list beside its lookups and the first-run steps: on PostgreSQL the round trips overlap (issue 32).
      const region = c.req.header('hx-target') === 'ticket-list';
      const [props, firstRun] = await Promise.all([
        listProps(c, actor, query, chosen, { filters }),
        region
          ? undefined
          : firstRunState(dbOf(c), actor, {
              addresses: c.get('deps').env.MAIL_ADDRESSES,
              imap: c.get('deps').env.IMAP_URL !== undefined,
            }),
      ]);
      const { tickets, total, total_exact, limit, offset } = props;
      return respond(
        c,
        { tickets, total, total_exact, limit, offset },
        {
          title: 'Tickets',
          view: async () => {
            // What the last bulk change of a plain form post said (read once).
            const flash = getCookie(c, FLASH);
            if (flash !== undefined) deleteCookie(c, FLASH, { path: FLASH_OPTIONS.path });
            const summary = flash === undefined ? undefined : safeDecode(flash);
            // The filter form sends every field; the address pushed to history keeps only what is set.
            if (isHtmx(c))
              c.header(
                'HX-Push-Url',
                canonicalListUrl(props.params, !props.view && sameColumns(props.columns, DEFAULT_COLUMNS)),
              );
            return region ? (
              <TicketListRegion {...props} summary={summary} />
            ) : (
              <TicketListPage {...props} summary={summary} firstRun={firstRun} />
            );
          },
        },
      );
    },
  );

  // SPEC C4: one change to many tickets, each in its own unit of work (decision 035).
  app.patch(
    '/',
    doc({
      summary: 'Change many tickets',
      description: `The same change to up to ${BULK_MAX_IDS} tickets, each in its own unit of work: one ticket's failure is its own \`results\` entry.`,
      body: BulkUpdateSchema,
      ok: { 200: BulkResultsSchema },
      errors: [409],
    }),
    async (c) => {
      const actor = actorOf(c);
      const db = dbOf(c);
      let input: z.infer<typeof BulkUpdateSchema>;
      try {
        input = await readBody(c, BulkUpdateSchema);
      } catch (e) {
        // A plain form post goes back to its list, saying what was wrong; htmx shows the error at the form.
        if (!(e instanceof AppError) || !wantsHtml(c) || isHtmx(c)) throw e;
        const back = await formReturnTo(c);
        setCookie(
          c,
          FLASH,
          encodeURIComponent(
            `Nothing changed: ${e.details?.map((d) => d.message).join('; ') ?? e.message}`.slice(0, 1000),
          ),
          FLASH_OPTIONS,
        );
        return c.redirect(`/tickets${back}`, 303);
      }
      // SPEC D6: a bulk change to deleted asks first; without confirm nothing changes.
      if (input.changes.status === 'deleted' && !input.confirm) {
        const n = input.ids.length;
        const question = `Delete ${n === 1 ? `ticket #${input.ids[0]}` : `${n} tickets`}? Nothing was changed: send the change again with confirm: true to delete.`;
        if (!wantsHtml(c)) throw new AppError('conflict', question);
        const props = { ids: input.ids, changes: input.changes, returnTo: input.return_to ?? '' };
        if (isHtmx(c)) {
          c.header('HX-Retarget', '#bulk-error');
          c.header('HX-Reswap', 'innerHTML');
          return c.html(<BulkDeleteQuestion {...props} />);
        }
        return c.render(<BulkDeleteQuestion {...props} standalone />, { title: 'Delete tickets?' });
      }
      const changes = input.force ? { ...input.changes, force: true } : input.changes;
      const results = await bulkUpdateTickets(db, actor, input.ids, changes, notifyOf(c));
      if (!wantsHtml(c)) return c.json({ results });
      const summary = bulkSummary(results);
      const back = input.return_to ?? '';
      if (!isHtmx(c)) {
        setCookie(c, FLASH, encodeURIComponent(summary.slice(0, 1000)), FLASH_OPTIONS);
        return c.redirect(`/tickets${back}`, 303);
      }
      // htmx: the list region again, as its query string asks, with the summary. The tickets have
      // changed by now: a return_to that is no list (hand-made) shows the plain list, not a 422.
      const { columns, ...rest } = Object.fromEntries(new URLSearchParams(back));
      const query = TicketListQuerySchema.safeParse(nestFilterParams(rest));
      const chosen = columns === undefined ? undefined : ColumnsParamSchema.safeParse(columns);
      const asked =
        query.success && chosen?.success !== false
          ? await listProps(c, actor, query.data, chosen?.data).catch((e) => {
              if (e instanceof AppError) return null;
              throw e;
            })
          : null;
      const props = asked ?? (await listProps(c, actor, {}, undefined));
      return c.html(inZone(c, <TicketListRegion {...props} summary={summary} />));
    },
  );
  return app;
}
