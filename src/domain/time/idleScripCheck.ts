import { eq } from 'drizzle-orm';
import { type Db, first } from '../../db/port.js';
import { templates } from '../../db/tables.js';
import { CLOSING_TEMPLATE } from '../../scrips/kinds.js';
import { invalid } from '../errors.js';
import { checkIdleConfig } from './idle.js';

/**
 * SPEC D2: what an on_idle scrip and a close_idle action need to run, checked before a scrip is
 * stored (decision 072); each error names the field.
 */
export async function checkIdleScrip(
  db: Db,
  condition: string,
  action: string,
  templateId: number | null,
  config: Record<string, unknown>,
): Promise<void> {
  if (condition === 'on_idle') checkIdleConfig(config);
  if (action !== 'close_idle' || templateId !== null) return;
  const name = config.template ?? CLOSING_TEMPLATE;
  if (typeof name !== 'string' || name.trim() === '')
    throw invalid('config.template', 'The close_idle action needs the name of a template to mail (default "Closing")');
  if (!(await first(db.select({ id: templates.id }).from(templates).where(eq(templates.name, name)))))
    throw invalid('config.template', `There is no template "${name}"`);
}
