import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

// axe-core (a devDependency) run inside the page under test: its source is evaluated once per
// document (DevTools evaluation, which the app's Content-Security-Policy does not govern) and `axe.run()` checks the whole document (WCAG 2.x A/AA rules and axe's best practices).
const require = createRequire(import.meta.url);
const axeSource: string = require('axe-core').source;

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[]; failureSummary?: string }[];
}
export interface AxeResult {
  /** Every violation axe reports, whatever its impact. */
  all: AxeViolation[];
  /** The serious and critical ones: what a screen must not have. */
  serious: AxeViolation[];
  /** One line per serious/critical node: rule id, target, what to fix. */
  message: string;
}

/** Runs axe-core on the page as it is now (injecting it if this document has none yet). */
export async function axeCheck(page: Page): Promise<AxeResult> {
  if (!(await page.evaluate(() => 'axe' in globalThis))) await page.evaluate(axeSource); // not a <script>: the app's CSP refuses inline scripts
  const all = (await page.evaluate(async () => {
    const axe = (globalThis as any).axe;
    const r = await axe.run((globalThis as any).document, { resultTypes: ['violations'] });
    return r.violations.map((v: any) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n: any) => ({ target: n.target.map(String), failureSummary: n.failureSummary })),
    }));
  })) as AxeViolation[];
  const serious = all.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  const message = serious
    .flatMap((v) =>
      v.nodes.map(
        (n) =>
          `[${v.impact}] ${v.id} at ${n.target.join(' ')}: ${v.help}${n.failureSummary ? ` — ${n.failureSummary.replace(/\s+/g, ' ').trim()}` : ''}`,
      ),
    )
    .join('\n');
  return { all, serious, message };
}
