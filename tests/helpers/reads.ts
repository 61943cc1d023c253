import { expect } from 'vitest';
import type { TestServer } from './server.js';

// Reads through the JSON API (as the admin, `s.api`'s default) that must succeed.

/** The history of ticket `id`, oldest first. */
export async function transactionsOf<T = any>(s: Pick<TestServer, 'api'>, id: number): Promise<T[]> {
  const res = await s.api('GET', `/tickets/${id}/transactions`);
  expect(res.status, res.text).toBe(200);
  return res.body.transactions as T[];
}

/** Ticket `id`, as the admin reads it. */
export async function ticketOf<T = any>(s: Pick<TestServer, 'api'>, id: number): Promise<T> {
  const res = await s.api('GET', `/tickets/${id}`);
  expect(res.status, res.text).toBe(200);
  return res.body as T;
}

/** The user with exactly this address, from the whole list, or undefined. */
export async function userByEmail<T extends { email: string } = any>(
  s: Pick<TestServer, 'api'>,
  email: string,
): Promise<T | undefined> {
  const res = await s.api('GET', '/users');
  expect(res.status, res.text).toBe(200);
  return (res.body.users as T[]).find((u) => u.email === email);
}

/** The fields of a ticket as the API answers it, sorted (SPEC B4). */
export const TICKET_KEYS = [
  'admin_cc',
  'cc',
  'created_at',
  'csat',
  'custom_fields',
  'description',
  'id',
  'links',
  'next_due_at',
  'owner_id',
  'priority',
  'queue_id',
  'replied_while_snoozed',
  'requester_id',
  'requesters',
  'resolved_at',
  'sla',
  'snoozed_until',
  'status',
  'subject',
  'tags',
  'team_id',
  'time_worked_minutes',
  'updated_at',
];
