import { CaptureTag, Context, type Emitter, Liquid, LiquidError, type Template, toValue, toValueSync } from 'liquidjs';
import { type ScopeNeeds, TICKET_PARTS, type TicketPart } from './context.js';

// Templates are Liquid (SPEC B3): logic-less, no code execution. The engine is built with no
// file system (an empty in-memory template map, so include/render/layout find nothing), own
// properties only (no prototype access), and parse/render/memory limits against runaway
// templates. Rendered text is bounded too (SPEC D0, decision 040): a render stops as soon as
// its output passes RENDER_MAX_BYTES.

/** SPEC D0: the most a rendered template, canned response or signature may be, in UTF-8 bytes (1 MiB). */
export const RENDER_MAX_BYTES = 1024 * 1024;

/** A render that passed RENDER_MAX_BYTES: stopped there, nothing of it is used. */
export class RenderTooLarge extends Error {
  constructor() {
    super(`The rendered text is larger than 1 MiB (${RENDER_MAX_BYTES} bytes)`);
    this.name = 'RenderTooLarge';
  }
}

/**
 * Where a render writes (liquidjs's SimpleEmitter, counted): it throws the moment the text would
 * pass the cap, so a loop repeating a long description stops after the first MiB instead of
 * building hundreds of MB. Lengths in UTF-16 units bound the UTF-8 size from below, so a write
 * that is too long by that measure is refused before it is ever encoded.
 */
class CappedEmitter implements Emitter {
  buffer = '';
  private bytes = 0;

  write(html: unknown): void {
    const value = toValue(html);
    if (Array.isArray(value)) {
      for (const item of value) this.write(item); // liquidjs prints an array as its items joined
      return;
    }
    const text = typeof value === 'string' ? value : value === null || value === undefined ? '' : String(value);
    if (this.bytes + text.length > RENDER_MAX_BYTES) throw new RenderTooLarge();
    this.bytes += Buffer.byteLength(text);
    if (this.bytes > RENDER_MAX_BYTES) throw new RenderTooLarge();
    this.buffer += text;
  }
}

/**
 * `{% capture %}` renders into an emitter of its own (not the caller's), so a capture inside a
 * loop could grow without ever writing output: captured text is capped the same way.
 */
class CappedCapture extends CaptureTag {
  override *render(ctx: Context): Generator<unknown, void, string> {
    const html = yield this.liquid.renderer.renderTemplates(this.templates, ctx, new CappedEmitter());
    ctx.bottom()[this.variable] = html;
  }
}

const base = {
  templates: {}, // in-memory only: `{% include %}` cannot reach files
  ownPropertyOnly: true,
  strictFilters: true,
  parseLimit: 100_000,
  renderLimit: 200, // ms per render
  memoryLimit: 10_000_000,
  dynamicPartials: false,
};

function engine(strictVariables: boolean): Liquid {
  const liquid = new Liquid({ ...base, strictVariables, lenientIf: strictVariables });
  liquid.registerTag('capture', CappedCapture);
  return liquid;
}

/** Lenient at send time: a missing owner renders as empty text, not as a failed mail. */
const lenient = engine(false);
/** Strict at save time: a misspelt variable is an error the admin sees at once. */
const strict = engine(true);

/**
 * Renders parsed templates into a CappedEmitter: what `renderSync` does (a new Context, hence a
 * fresh render time and memory limit), with our emitter instead of liquidjs's unbounded one.
 * Synchronous on purpose: the scope is plain data loaded beforehand (no async filters or drops),
 * and a sync render is one uninterrupted call that the cap and the time limit end; liquidjs's
 * async render awaits only promises, so it would not yield to other requests meanwhile anyway.
 * A RenderTooLarge arrives wrapped in liquidjs's RenderError: it is unwrapped here.
 */
function renderCapped(liquid: Liquid, templates: Template[], scope: object): string {
  const ctx = new Context(scope, liquid.options, { sync: true }, { liquid });
  try {
    return toValueSync(liquid.renderer.renderTemplates(templates, ctx, new CappedEmitter())) as string;
  } catch (e) {
    throw tooLarge(e) ?? e;
  }
}

/** The RenderTooLarge behind a liquidjs error (its originalError), if that is what it is. */
function tooLarge(e: unknown): RenderTooLarge | undefined {
  for (
    let x = e, depth = 0;
    x instanceof Error && depth < 10;
    x = (x as { originalError?: unknown }).originalError, depth++
  ) {
    if (x instanceof RenderTooLarge) return x;
  }
  return undefined;
}
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

/** Renders a template leniently (send time); throws RenderTooLarge past RENDER_MAX_BYTES, a LiquidError on its own other failures. */
export function renderTemplate(source: string, scope: object): string {
  return renderCapped(lenient, parse(source), scope);
}

const needsBySource = new Map<string, ScopeNeeds>();
const PARTS = new Set<string>(TICKET_PARTS);

/**
 * What of the scope a template reads (decision 026), by Liquid's static analysis: the ticket
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
        if (part === undefined || typeof part !== 'string')
          all = true; // whole, or a computed key
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

/** A template's own failure (syntax, a render time or memory limit, too large a text), as opposed to a bug of ours. */
export const isTemplateError = (e: unknown): e is Error => e instanceof LiquidError || e instanceof RenderTooLarge;

/** A template's own failure as the person who wrote it reads it: "Liquid error: …", or the size it passed. */
export const templateErrorMessage = (e: Error): string =>
  e instanceof RenderTooLarge ? e.message : `Liquid error: ${e.message.split('\n')[0]}`;

/**
 * Checks a template by parsing it and rendering it strictly against a complete sample scope.
 * Returns what is wrong (templateErrorMessage), or null when the template is fine.
 */
export function templateError(source: string, sampleScope: object): string | null {
  try {
    renderCapped(strict, strict.parse(source), sampleScope);
    return null;
  } catch (e) {
    return templateErrorMessage(e as Error);
  }
}
