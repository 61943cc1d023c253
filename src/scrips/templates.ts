import { Liquid, LiquidError } from 'liquidjs';
import { type ScopeNeeds, TICKET_PARTS, type TicketPart } from './context.js';

// Templates are Liquid (SPEC B3): logic-less, no code execution. The engine is built with no
// file system (an empty in-memory template map, so include/render/layout find nothing), own
// properties only (no prototype access), and parse/render/memory limits against runaway
// templates.

const base = {
  templates: {}, // in-memory only: `{% include %}` cannot reach files
  ownPropertyOnly: true,
  strictFilters: true,
  parseLimit: 100_000,
  renderLimit: 200, // ms per render
  memoryLimit: 10_000_000,
  dynamicPartials: false,
};

/** Lenient at send time: a missing owner renders as empty text, not as a failed mail. */
const lenient = new Liquid({ ...base, strictVariables: false });
/** Strict at save time: a misspelt variable is an error the admin sees at once. */
const strict = new Liquid({ ...base, strictVariables: true, lenientIf: true });

/** Parsed templates by source text: parsing costs more than rendering, and templates rarely change. */
const parsed = new Map<string, ReturnType<Liquid['parse']>>();

function parse(source: string) {
  let tpl = parsed.get(source);
  if (!tpl) {
    tpl = lenient.parse(source);
    if (parsed.size >= 500) parsed.delete(parsed.keys().next().value!);
    parsed.set(source, tpl);
  }
  return tpl;
}

export function renderTemplate(source: string, scope: object): string {
  return lenient.renderSync(parse(source), scope);
}

const needsBySource = new Map<string, ScopeNeeds>();
const PARTS = new Set<string>(TICKET_PARTS);

/**
 * What of the scope a template reads (decision 024), by Liquid's static analysis: the ticket
 * parts that cost a query (`ticket.owner.name` → owner), and the transaction's creator. A
 * template that names `ticket` or `transaction` whole (a loop over it, an `assign`) gets all.
 * A template that does not parse needs nothing (rendering it fails anyway).
 */
export function templateNeeds(source: string): ScopeNeeds {
  let needs = needsBySource.get(source);
  if (needs) return needs;
  const ticket = new Set<TicketPart>();
  let all = false;
  let creator = false;
  try {
    for (const v of lenient.variableSegmentsSync(parse(source))) {
      const [root, part] = v;
      if (root === 'ticket') {
        if (part === undefined || typeof part !== 'string') all = true; // whole, or a computed key
        else if (PARTS.has(part)) ticket.add(part as TicketPart);
      } else if (root === 'transaction') {
        if (part === undefined || typeof part !== 'string' || part === 'creator') creator = true;
      }
    }
  } catch {
    // unparsable: nothing to load
  }
  needs = { ticket: all ? 'all' : ticket, creator };
  if (needsBySource.size >= 500) needsBySource.delete(needsBySource.keys().next().value!);
  needsBySource.set(source, needs);
  return needs;
}

/** A template's own failure (syntax, a render time or memory limit), as opposed to a bug of ours. */
export const isTemplateError = (e: unknown): e is Error => e instanceof LiquidError;

/**
 * Checks a template by parsing it and rendering it strictly against a complete sample scope.
 * Returns the Liquid error message, or null when the template is fine.
 */
export function templateError(source: string, sampleScope: object): string | null {
  try {
    strict.parseAndRenderSync(source, sampleScope);
    return null;
  } catch (e) {
    return (e as Error).message.split('\n')[0];
  }
}
