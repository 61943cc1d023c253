import { Liquid, LiquidError } from 'liquidjs';

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

export function renderTemplate(source: string, scope: object): string {
  let tpl = parsed.get(source);
  if (!tpl) {
    tpl = lenient.parse(source);
    if (parsed.size >= 500) parsed.delete(parsed.keys().next().value!);
    parsed.set(source, tpl);
  }
  return lenient.renderSync(tpl, scope);
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
