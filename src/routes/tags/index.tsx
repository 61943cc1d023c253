import { Hono, type Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { AppError } from '../../domain/errors.js';
import { deleteTagEverywhere, listTags, renameTag, TAGS_LIST_MAX } from '../../domain/tags/admin.js';
import { addTag, removeTag } from '../../domain/tags/ticketTags.js';
import { TagOptions, TagsBox } from '../../views/tickets/tags.js';
import { History } from '../../views/tickets/show.js';
import { DeleteTagQuestion, TagsAdminPage } from '../../views/admin/tags.js';
import type { AppEnv } from '../context.js';
import { documented } from '../openapi.js';
import {
  actorOf,
  adminOf,
  adminScreen,
  dbOf,
  inZone,
  isHtmx,
  notifyOf,
  pathId,
  queryObject,
  readBody,
  respond,
  validate,
  wantsHtml,
} from '../respond.js';
import { pageProps } from '../tickets/props.js';
import {
  AddTagSchema,
  DeleteTagSchema,
  RenameTagSchema,
  TagChangeSchema,
  TagDeletedSchema,
  TagListQuerySchema,
  TagListSchema,
  TagPathSchema,
  TagRenamedSchema,
} from './schemas.js';

// SPEC D3 tags (decision 074): on a ticket (POST /tickets/:id/tags, DELETE
// /tickets/:id/tags/:tag) and across tickets (GET /tags, PATCH and DELETE /tags/:tag).

type C = Context<AppEnv>;
const doc = documented('Tags');
const tagParam = (c: C) => validate(TagPathSchema, c.req.param('tag'), 'tag');

/** After a tag change on the ticket page (htmx): the Tags box, and the history with the new entry. */
async function tagsChanged(c: C, id: number) {
  const p = await pageProps(c, actorOf(c), id);
  return (
    <>
      <TagsBox ticketId={id} tags={p.ticket.tags} focusAdd />
      <History p={p} oob />
    </>
  );
}

/** POST /tickets/:id/tags and DELETE /tickets/:id/tags/:tag, mounted under /tickets. */
export function ticketTagRoutes() {
  const app = new Hono<AppEnv>();
  app.post(
    '/:id/tags',
    doc({
      summary: 'Tag a ticket (staff)',
      description:
        'An `AddTag` entry that runs scrips: 201. A tag the ticket has already changes nothing: 200, no entry.',
      body: AddTagSchema,
      ok: { 201: TagChangeSchema, 200: TagChangeSchema },
      errors: [403, 404],
    }),
    async (c) => {
      const id = pathId(c);
      const { tag } = await readBody(c, AddTagSchema);
      const { added, ...change } = await addTag(dbOf(c), actorOf(c), id, tag, notifyOf(c));
      return respond(c, change, {
        status: added ? 201 : 200,
        title: `#${id}`,
        location: `/tickets/${id}`,
        view: () => tagsChanged(c, id),
      });
    },
  );
  app.delete(
    '/:id/tags/:tag',
    doc({
      summary: 'Take a tag off a ticket (staff)',
      description: 'A `DelTag` entry that runs scrips; 404 when the ticket has no such tag.',
      path: { tag: TagPathSchema },
      ok: { 200: TagChangeSchema },
      errors: [403, 404, 422],
    }),
    async (c) => {
      const id = pathId(c);
      const change = await removeTag(dbOf(c), actorOf(c), id, tagParam(c), notifyOf(c));
      return respond(c, change, { title: `#${id}`, location: `/tickets/${id}`, view: () => tagsChanged(c, id) });
    },
  );
  return app;
}

/** GET /tags, PATCH /tags/:tag, DELETE /tags/:tag. */
export function tagRoutes() {
  const app = new Hono<AppEnv>();
  app.get(
    '/',
    doc({
      summary: 'The tags in use, with their tickets (staff)',
      description: `By name, at most ${TAGS_LIST_MAX}; \`q\`: only those starting with it (autocomplete).`,
      query: TagListQuerySchema,
      ok: { 200: TagListSchema },
      errors: [403],
    }),
    async (c) => {
      const query = validate(TagListQuerySchema, queryObject(c));
      const tags = await listTags(dbOf(c), actorOf(c), query);
      // A tag field's suggestions (its datalist asked on focus): the options only.
      if (isHtmx(c) && c.req.header('hx-target')?.endsWith('-options')) return c.html(<TagOptions tags={tags} />);
      return respond(
        c,
        { tags },
        {
          title: 'Tags',
          view: adminScreen(c, () => (
            <TagsAdminPage tags={tags} q={query.q} capped={tags.length >= TAGS_LIST_MAX} notice={notice(c)} />
          )),
        },
      );
    },
  );
  app.patch(
    '/:tag',
    doc({
      summary: 'Rename a tag, or merge it into another (admins)',
      description:
        'Each ticket with the tag gets a `DelTag` of the old name and an `AddTag` of the new one (none when it has it already), in its own unit of work, with its scrips.',
      path: { tag: TagPathSchema },
      body: RenameTagSchema,
      ok: { 200: TagRenamedSchema },
      errors: [403, 404],
    }),
    async (c) => {
      const actor = adminOf(c);
      const from = tagParam(c);
      const input = await readBody(c, RenameTagSchema);
      const result = await renameTag(dbOf(c), actor, from, input, notifyOf(c));
      const said =
        from === result.tag.name
          ? `“${from}” already has that name`
          : `Renamed “${from}” to “${result.tag.name}” on ${plural(result.tickets)}`;
      if (wantsHtml(c)) tell(c, said);
      return respond(c, result, { title: 'Tags', location: '/tags' });
    },
  );
  app.delete(
    '/:tag',
    doc({
      summary: 'Remove a tag from every ticket (admins)',
      description:
        'Each ticket gets a `DelTag` entry, in its own unit of work, with its scrips. A page (HTML) asks first unless `confirm` is true.',
      path: { tag: TagPathSchema },
      body: DeleteTagSchema,
      ok: { 200: TagDeletedSchema },
      errors: [403, 404],
    }),
    async (c) => {
      const actor = adminOf(c);
      const tag = tagParam(c);
      const { confirm } = await readBody(c, DeleteTagSchema);
      if (wantsHtml(c) && !confirm) {
        const count = (await listTags(dbOf(c), actor, { q: tag })).find((t) => t.name === tag)?.count ?? 0;
        if (count === 0) throw new AppError('not_found', `No ticket has the tag "${tag}"`);
        const question = <DeleteTagQuestion tag={tag} count={count} />;
        if (isHtmx(c)) return c.html(inZone(c, question));
        return c.render(question, { title: `Delete the tag ${tag}?` });
      }
      const result = await deleteTagEverywhere(dbOf(c), actor, tag, notifyOf(c));
      if (wantsHtml(c)) tell(c, `Deleted “${tag}” from ${plural(result.tickets)}`);
      return respond(c, result, { title: 'Tags', location: '/tags' });
    },
  );
  return app;
}

const plural = (n: number) => (n === 1 ? '1 ticket' : `${n} tickets`);

/** What the last rename or delete did, said once by the admin page it lands on (a cookie, read once). */
const NOTICE = 'hxdesk_tags_notice';
const NOTICE_OPTIONS = { path: '/tags', httpOnly: true, sameSite: 'Lax', maxAge: 60 } as const;
function tell(c: C, said: string): void {
  setCookie(c, NOTICE, encodeURIComponent(said.slice(0, 300)), NOTICE_OPTIONS);
}
function notice(c: C): string | undefined {
  const said = getCookie(c, NOTICE);
  if (said === undefined) return undefined;
  deleteCookie(c, NOTICE, { path: NOTICE_OPTIONS.path });
  try {
    return decodeURIComponent(said);
  } catch {
    return undefined;
  }
}
