import { Hono } from 'hono';
import { nestFilterParams, TicketListQuerySchema } from '../../domain/tickets/query.js';
import { listTickets } from '../../domain/tickets/list.js';
import { commentOnTicket, createTicket, getAttachment, getTicket, listTicketTransactions, updateTicket } from '../../domain/tickets/write.js';
import type { AppEnv } from '../context.js';
import { actorOf, dbOf, pathId, queryObject, readBody, respond, validate } from '../respond.js';
import { CommentSchema, CreateTicketSchema, UpdateTicketSchema } from './schemas.js';

export function ticketRoutes() {
  const app = new Hono<AppEnv>();
  app.get('/', (c) => {
    const query = validate(TicketListQuerySchema, nestFilterParams(queryObject(c)));
    return respond(c, listTickets(dbOf(c), actorOf(c), query), { title: 'Tickets' });
  });
  app.post('/', async (c) => {
    const result = createTicket(dbOf(c), actorOf(c), await readBody(c, CreateTicketSchema));
    return respond(c, result, { status: 201, title: result.ticket.subject, location: `/tickets/${result.ticket.id}` });
  });
  app.get('/:id', (c) => {
    const ticket = getTicket(dbOf(c), actorOf(c), pathId(c));
    return respond(c, ticket, { title: `#${ticket.id} ${ticket.subject}` });
  });
  app.patch('/:id', async (c) => {
    const id = pathId(c);
    const result = updateTicket(dbOf(c), actorOf(c), id, await readBody(c, UpdateTicketSchema));
    return respond(c, result, { title: `#${id}`, location: `/tickets/${id}` });
  });
  app.get('/:id/transactions', (c) => {
    const id = pathId(c);
    return respond(c, { transactions: listTicketTransactions(dbOf(c), actorOf(c), id) }, { title: `#${id} history` });
  });
  app.post('/:id/comment', async (c) => {
    const id = pathId(c);
    const result = commentOnTicket(dbOf(c), actorOf(c), id, await readBody(c, CommentSchema));
    return respond(c, result, { status: 201, title: `#${id}`, location: `/tickets/${id}` });
  });
  return app;
}

/** GET /attachments/:id — always a download (never rendered inline by the browser). */
export function attachmentRoutes() {
  const app = new Hono<AppEnv>();
  app.get('/:id', (c) => {
    const a = getAttachment(dbOf(c), actorOf(c), pathId(c));
    return c.body(new Uint8Array(a.content), 200, {
      'Content-Type': a.content_type,
      'Content-Disposition': `attachment; filename="${a.filename.replace(/[^\x20-\x7e]|["\\]/g, '_')}"; filename*=UTF-8''${encodeURIComponent(a.filename)}`,
      'Content-Security-Policy': "sandbox; default-src 'none'",
      'Cache-Control': 'private, max-age=3600',
    });
  });
  return app;
}
