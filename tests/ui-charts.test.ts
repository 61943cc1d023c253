// The SVG charts in a real Chromium (decision 083): rendered to a static page with the app's own
// stylesheet and opened with page.setContent (no server: the charts are pure views; the reports
// page that uses them is tested with its route). At 360 px and 1280 px: axe finds nothing
// serious, nothing overflows, the text stays readable and no two labels overlap.
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeCheck } from './helpers/axe.js';
import { launchBrowser, screenshot } from './helpers/browser.js';
import { BarChart, durationText, firstResponseBuckets, HBarChart, Histogram } from '../src/views/charts/index.js';

const css = fs.readFileSync(path.resolve(import.meta.dirname, '..', 'static', 'app.css'), 'utf8');

const week = (i: number) => `2026-W${String(i).padStart(2, '0')}`;
const sections: [string, unknown][] = [
  [
    'Created and resolved per week',
    BarChart({
      id: 'per-week',
      title: 'Created and resolved per week',
      category: 'Week',
      unit: 'tickets',
      series: ['Created', 'Resolved'],
      data: Array.from({ length: 13 }, (_, i) => ({
        label: week(i + 1),
        values: [20 + ((i * 7) % 13), 18 + ((i * 5) % 11)],
        links: [`/tickets?created_from=${week(i + 1)}`, null],
      })),
    }),
  ],
  [
    'A year by week',
    BarChart({
      id: 'year',
      title: 'Created and resolved, a year by week',
      category: 'Week',
      series: ['Created', 'Resolved'],
      data: Array.from({ length: 52 }, (_, i) => ({ label: week(i + 1), values: [1000 + i * 37, 900 + i * 41] })),
    }),
  ],
  [
    'First response',
    Histogram({
      id: 'first-response',
      title: 'First response',
      category: 'First response',
      unit: 'tickets',
      data: firstResponseBuckets([3, 9, 12, 14, 20, 30, 45, 70, 200, 300, 900, 1500, 2000, 5000]),
    }),
  ],
  [
    'Per agent',
    HBarChart({
      id: 'per-agent',
      title: 'Resolved per agent',
      category: 'Agent',
      series: ['Resolved'],
      data: [
        { label: 'Ann Example', values: [48] },
        { label: 'Bartholomew Featherstonehaugh-Smythe', values: [31] },
        { label: '<script>alert(1)</script>', values: [7] },
        { label: 'Cy', values: [0] },
      ],
    }),
  ],
  [
    'First response per agent',
    HBarChart({
      id: 'fr-agent',
      title: 'First response per agent',
      category: 'Agent',
      series: ['Median', 'p90'],
      format: durationText,
      data: [
        { label: 'Ann Example', values: [42, 200] },
        { label: 'Bartholomew Featherstonehaugh-Smythe', values: [95, 3000] },
      ],
    }),
  ],
  ['Nothing yet', BarChart({ id: 'none', title: 'Reopened per week', series: ['Reopened'], data: [] })],
];

const page$ = `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>Charts</title><style>${css}</style></head>
<body><main id="main"><h1>Charts</h1><div class="charts">${sections
  .map(([h, chart]) => `<section><h2>${h}</h2>${String(chart)}</section>`)
  .join('')}</div></main></body></html>`;

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

/** Whatever a reader would see wrong: overflow, small text, overlapping or clipped labels. */
async function layoutProblems(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const doc = (globalThis as any).document;
    const out: string[] = [];
    const vw = doc.documentElement.clientWidth;
    if (doc.documentElement.scrollWidth > vw)
      out.push(`page scrolls sideways: ${doc.documentElement.scrollWidth} > ${vw}`);
    for (const chart of doc.querySelectorAll('.chart')) {
      const c = chart.getBoundingClientRect();
      if (c.right > vw + 0.5) out.push(`${chart.id} ends at ${c.right} > ${vw}`);
      for (const t of chart.querySelectorAll('table'))
        if (t.scrollWidth > chart.clientWidth + 1) out.push(`${chart.id} table overflows`);
      const svg = chart.querySelector('svg');
      if (!svg) continue;
      const s = svg.getBoundingClientRect();
      const scale = s.width / svg.viewBox.baseVal.width;
      if (12 * scale < 10) out.push(`${chart.id} text is ${(12 * scale).toFixed(1)} px`);
      const texts = [...svg.querySelectorAll('text')] as any[];
      for (const t of texts) {
        const r = t.getBoundingClientRect();
        if (r.left < s.left - 0.5 || r.right > s.right + 0.5 || r.top < s.top - 0.5 || r.bottom > s.bottom + 0.5)
          out.push(`${chart.id} label "${t.textContent}" is cut off`);
      }
      // Category labels: straight ones must not touch; rotated ones stay a line apart.
      const labels = [...svg.querySelectorAll('.chart-labels text, .chart-row > text')] as any[];
      for (let i = 1; i < labels.length; i++) {
        const a = labels[i - 1].getBoundingClientRect();
        const b = labels[i].getBoundingClientRect();
        if (labels[i].getAttribute('transform')) {
          const apart = (b.right - a.right) * Math.SQRT1_2;
          if (apart < 11 * scale)
            out.push(`${chart.id} rotated labels ${i - 1}/${i} only ${apart.toFixed(1)} px apart`);
        } else if (a.right > b.left && a.left < b.right && a.bottom > b.top && a.top < b.bottom)
          out.push(`${chart.id} labels "${labels[i - 1].textContent}" and "${labels[i].textContent}" overlap`);
      }
    }
    return out;
  });
}

describe('SVG charts in Chromium', () => {
  for (const width of [360, 1280]) {
    it(`read at ${width} px: axe finds nothing serious, nothing overflows or overlaps`, async () => {
      const context = await browser.newContext({ viewport: { width, height: 900 } });
      const page = await context.newPage();
      await page.setContent(page$);
      // The drill-down links of the table are in the tab order.
      await page.keyboard.press('Tab');
      expect(await page.evaluate(() => (globalThis as any).document.activeElement?.getAttribute('href'))).toBe(
        '/tickets?created_from=2026-W01',
      );
      // The year's 52 rows sit folded under its chart: opened, they are checked like the rest.
      await page.getByText('Table of the 52 rows').click();
      expect(
        await page.getByRole('table', { name: 'Created and resolved, a year by week' }).getByRole('row').count(),
      ).toBe(53);
      const axe = await axeCheck(page);
      expect(axe.message).toBe('');
      expect(await layoutProblems(page)).toEqual([]);
      // The escaped name stays text (nothing ran), and each chart is one named image.
      expect(await page.evaluate(() => (globalThis as any).document.scripts.length)).toBe(0);
      const img = page.getByRole('img', { name: 'Resolved per agent', exact: true });
      expect(await img.count()).toBe(1);
      expect(await img.getAttribute('aria-describedby').then((d) => page.locator(`#${d}`).textContent())).toBe(
        'Resolved per agent: 4 categories. Ann Example 48; Bartholomew Featherstonehaugh-Smythe 31; <script>alert(1)</script> 7; Cy 0.',
      );
      expect(await page.getByRole('table', { name: 'Resolved per agent' }).count()).toBe(1);
      expect(await page.getByRole('rowheader', { name: '<script>alert(1)</script>' }).count()).toBe(1);
      expect(await page.locator('#none').innerText()).toBe('Reopened per week: nothing to show for this period.');
      await screenshot(page, `charts-${width}`);
      await context.close();
    });
  }
});
