import type { Conn } from '../../db/port.js';
import { appliesToQueue, normalizeCustomValue, type CustomFieldJson } from '../customFields.js';
import { invalid } from '../errors.js';
import { teamExists } from '../teams.js';
import { getUserRow } from '../users.js';

// The checks a ticket's owner, team and custom field values pass before a create or update writes them.

export async function checkOwner(conn: Conn, id: number | null | undefined) {
  if (id == null) return;
  const u = await getUserRow(conn, id);
  if (!u) throw invalid('owner_id', `User ${id} does not exist`);
  if (u.disabled || u.role === 'requester')
    throw invalid('owner_id', `User ${id} cannot own tickets (must be an active agent or administrator)`);
}
export async function checkTeam(conn: Conn, id: number | null | undefined) {
  if (id != null && !(await teamExists(conn, id))) throw invalid('team_id', `Team ${id} does not exist`);
}

/** Validates custom field values for a queue; returns field id -> stored text (null = clear). */
export function checkCustomFields(
  fields: CustomFieldJson[],
  queueId: number,
  values: Record<string, unknown>,
  requireAll: boolean,
): Map<CustomFieldJson, string | null> {
  const out = new Map<CustomFieldJson, string | null>();
  for (const [key, value] of Object.entries(values)) {
    const path = `custom_fields.${key}`;
    const field = fields.find((f) => f.key === key);
    if (!field) throw invalid(path, `No custom field with key "${key}"`);
    if (!appliesToQueue(field, queueId)) throw invalid(path, `${field.name} does not apply to queue ${queueId}`);
    if (value === null || value === '') {
      if (field.required) throw invalid(path, `${field.name} is required`);
      out.set(field, null);
    } else {
      out.set(field, normalizeCustomValue(field, value, path));
    }
  }
  if (requireAll) {
    for (const f of fields) {
      if (f.required && appliesToQueue(f, queueId) && !out.get(f))
        throw invalid(`custom_fields.${f.key}`, `${f.name} is required`);
    }
  }
  return out;
}
