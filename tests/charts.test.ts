import { describe, expect, it } from 'vitest';
import {
  BarChart,
  ChartDataError,
  durationText,
  FIRST_RESPONSE_BUCKETS,
  firstResponseBuckets,
  HBarChart,
  Histogram,
} from '../src/views/charts/index.js';
import { COLOURS, MUTED, TEXT } from '../src/views/charts/parts.js';

// The charts are pure views: render them to markup and read back what a reader gets.
const html = (node: unknown) => String(node);
const attrs = (tag: string) =>
  Object.fromEntries([...tag.matchAll(/([\w-]+)="([^"]*)"/g)].map((m) => [m[1], m[2]])) as Record<string, string>;
const rects = (out: string) => [...out.matchAll(/<rect [^>]*data-series[^>]*>/g)].map((m) => attrs(m[0]));
const num = (s: string) => Number.parseFloat(s);
const labelTexts = (out: string) =>
  [...(out.match(/<g class="chart-labels"[^>]*>(.*?)<\/g>/)?.[1] ?? '').matchAll(/<text [^>]*>/g)].map((m) =>
    attrs(m[0]),
  );
const weeks = (n: number) =>
  Array.from({ length: n }, (_, i) => ({ label: `2026-W${String(i + 1).padStart(2, '0')}`, values: [i + 1, i] }));

describe('bar chart', () => {
  it('draws bar heights proportional to the values, standing on one baseline', () => {
    const out = html(
      BarChart({
        id: 'w',
        title: 'Created per week',
        series: ['Created'],
        data: [
          { label: 'W1', values: [10] },
          { label: 'W2', values: [20] },
          { label: 'W3', values: [40] },
          { label: 'W4', values: [0] },
        ],
      }),
    );
    const r = rects(out);
    expect(r.map((b) => b['data-value'])).toEqual(['10', '20', '40', '0']);
    const h = r.map((b) => num(b.height));
    expect(h[1] / h[0]).toBeCloseTo(2, 1);
    expect(h[2] / h[0]).toBeCloseTo(4, 1);
    expect(h[3]).toBe(0);
    const bottoms = r.map((b) => num(b.y) + num(b.height));
    expect(new Set(bottoms.map((b) => Math.round(b))).size).toBe(1);
    // The axis ends at a round number at or above the largest value: 0, 10, 20, 30, 40.
    expect([...out.matchAll(/text-anchor="end" fill="[^"]+">([^<]+)</g)].map((m) => m[1])).toEqual([
      '0',
      '10',
      '20',
      '30',
      '40',
    ]);
    expect(h[2]).toBe(170);
  });

  it('names the SVG by its title and a sentence of the figures, and repeats the data as a table', () => {
    const out = html(
      BarChart({
        id: 'per week',
        title: 'Created and resolved per week',
        category: 'Week',
        unit: 'tickets',
        series: ['Created', 'Resolved'],
        data: [
          { label: '2026-W10', values: [30, 25], links: ['/tickets?a=1', null] },
          { label: '2026-W11', values: [12, 14] },
        ],
      }),
    );
    const svg = attrs(out.match(/<svg [^>]*>/)![0]);
    expect(svg.role).toBe('img');
    expect(svg['aria-labelledby']).toBe('per-week-title');
    expect(svg['aria-describedby']).toBe('per-week-desc');
    expect(out).toContain('<title id="per-week-title">Created and resolved per week</title>');
    expect(out).toContain(
      '<desc id="per-week-desc">Created and resolved per week: 2 categories. 2026-W10: Created 30 tickets, Resolved 25 tickets; 2026-W11: Created 12 tickets, Resolved 14 tickets.</desc>',
    );
    expect(svg.viewBox).toMatch(/^0 0 360 \d+$/);
    // The table: caption, column and row headers with scope, every number; a link where given.
    expect(out).toContain('<caption>Created and resolved per week<span class="chart-unit"> (tickets)</span></caption>');
    expect(out).toContain('<th scope="col">Week</th>');
    expect(out).toContain('<th scope="col" class="num">Resolved</th>');
    expect(out).toContain(
      '<tr><th scope="row">2026-W10</th><td class="num"><a href="/tickets?a=1">30</a></td><td class="num">25</td></tr>',
    );
    // The second series is told apart by stripes and an outline as well as by colour, and named in a legend.
    const second = rects(out).filter((b) => b['data-series'] === '1');
    expect(second).toHaveLength(2);
    for (const b of second) {
      expect(b.fill).toBe('url(#per-week-stripes)');
      expect(b.stroke).toBe(COLOURS[1]);
    }
    expect(out).toContain('<pattern id="per-week-stripes"');
    expect(out).toMatch(/<ul class="chart-legend">.*Created.*Resolved.*<\/ul>/);
  });

  it('escapes labels: a name with <script> stays text in the SVG, the description and the table', () => {
    const evil = '<script>alert(1)</script>';
    for (const out of [
      html(BarChart({ id: 'x', title: `T ${evil}`, series: [evil], data: [{ label: evil, values: [1] }] })),
      html(HBarChart({ id: 'y', title: 'T', series: ['S'], data: [{ label: evil, values: [1] }] })),
    ]) {
      expect(out).not.toContain('<script');
      expect(out).toContain('&lt;script&gt;');
    }
  });

  it('says one sentence and draws nothing when there is no data', () => {
    for (const out of [
      html(BarChart({ id: 'e', title: 'Created per week', series: ['Created'], data: [] })),
      html(
        Histogram({
          id: 'e',
          title: 'Created per week',
          data: [],
          empty: 'Created per week: nothing to show for this period.',
        }),
      ),
      html(HBarChart({ id: 'e', title: 'Created per week', series: ['Created'], data: [] })),
    ]) {
      expect(out).toContain('<p class="chart-empty">Created per week: nothing to show for this period.</p>');
      expect(out).not.toContain('<svg');
      expect(out).not.toContain('<table');
    }
  });

  it('draws a single value', () => {
    const out = html(BarChart({ id: 'one', title: 'One', series: ['Created'], data: [{ label: 'W1', values: [1] }] }));
    const [b] = rects(out);
    expect(b.height).toBe('170');
    expect(out).toContain('One: 1 category. W1 1.');
    expect(out.match(/<tr>/g)).toHaveLength(2); // the header row and one data row
  });

  it('keeps huge values on the chart: compact ticks, exact table, a tiny value still visible', () => {
    const out = html(
      BarChart({
        id: 'big',
        title: 'Big',
        series: ['Minutes'],
        data: [
          { label: 'a', values: [1e12] },
          { label: 'b', values: [5e11] },
          { label: 'c', values: [1] },
        ],
      }),
    );
    expect(out).not.toMatch(/NaN|Infinity/);
    const h = rects(out).map((b) => num(b.height));
    expect(h[0] / h[1]).toBeCloseTo(2, 1);
    expect(h[2]).toBe(1);
    expect(out).toContain('>1T</text>');
    expect(out).toContain('<td class="num">1,000,000,000,000</td>');
  });

  it('refuses values it cannot draw truthfully', () => {
    const draw = (values: number[], series = ['A']) =>
      html(BarChart({ id: 'n', title: 'N', series, data: [{ label: 'x', values }] }));
    expect(() => draw([-1])).toThrow(ChartDataError);
    expect(() => draw([-1])).toThrow('"x" has a negative value (-1)');
    expect(() => draw([Number.NaN])).toThrow(ChartDataError);
    expect(() => draw([Number.POSITIVE_INFINITY])).toThrow(ChartDataError);
    expect(() => draw([1, 2])).toThrow('"x" has 2 values for 1 series');
    expect(() => draw([1, 2, 3], ['A', 'B', 'C'])).toThrow('a chart draws one or two series');
    expect(() => html(HBarChart({ id: 'n', title: 'N', series: ['A'], data: [{ label: 'x', values: [-5] }] }))).toThrow(
      ChartDataError,
    );
  });

  it('fits many categories at 360 units: labels rotated and thinned, none hanging outside, cut with a title', () => {
    const out = html(BarChart({ id: 'y', title: 'A year', series: ['Created', 'Resolved'], data: weeks(52) }));
    const labels = labelTexts(out);
    expect(labels.length).toBeLessThan(52);
    expect(labels.length).toBeGreaterThan(8);
    for (const l of labels) expect(l.transform).toMatch(/^rotate\(-45 /);
    // Anchors at least one rotated line apart (12 units / sin 45° ≈ 17).
    const xs = labels.map((l) => num(l.x));
    for (let i = 1; i < xs.length; i++) expect(xs[i] - xs[i - 1]).toBeGreaterThanOrEqual(17);
    // The first label hangs down-left of its anchor by (width + glyph height) × sin 45°: still inside.
    expect(xs[0] - ('2026-W01'.length * 7.92 + 12) * Math.SQRT1_2).toBeGreaterThanOrEqual(0);
    expect(rects(out)).toHaveLength(104); // every bar is drawn, only labels are thinned
    // Past 12 categories the description sums up each series instead of listing every figure.
    expect(out).toContain(
      '<desc id="y-desc">A year: 52 categories, from 2026-W01 to 2026-W52. Created: total 1,378, highest 52 (2026-W52), lowest 1 (2026-W01). Resolved: total 1,326, highest 51 (2026-W52), lowest 0 (2026-W01).</desc>',
    );
    // Bars this narrow show the second series' stripes across them, and the legend says so.
    expect(out).toContain('patternTransform="rotate(90)"');
    expect(out).toContain('class="chart chart-bar chart-dense"');
    // 52 rows: the table is folded under the chart, whole.
    expect(out).toMatch(/<details class="chart-more"><summary>Table of the 52 rows of “A year”<\/summary><table/);
    expect(out.match(/<th scope="row">/g)).toHaveLength(52);

    const long = 'A very long category label indeed';
    const cut = html(BarChart({ id: 'c', title: 'C', series: ['S'], data: [{ label: long, values: [3] }] }));
    expect(cut).toContain(`<title>${long}</title>A very long…</text>`);
    expect(cut).toContain(`<th scope="row">${long}</th>`);
  });

  it('draws all-zero data as flat bars on a 0–1 axis, and fractions on a fractional axis', () => {
    const zero = html(BarChart({ id: 'z', title: 'Z', series: ['A'], data: [{ label: 'W1', values: [0] }] }));
    expect(rects(zero)[0].height).toBe('0');
    expect([...zero.matchAll(/text-anchor="end" fill="[^"]+">([^<]+)</g)].map((m) => m[1])).toEqual(['0', '1']);
    const half = html(
      BarChart({
        id: 'f',
        title: 'F',
        series: ['Median'],
        data: [
          { label: 'a', values: [0.5] },
          { label: 'b', values: [1.5] },
        ],
      }),
    );
    expect([...half.matchAll(/text-anchor="end" fill="[^"]+">([^<]+)</g)].map((m) => m[1])).toEqual([
      '0',
      '0.5',
      '1',
      '1.5',
    ]);
    const h = rects(half).map((b) => num(b.height));
    expect(h[1] / h[0]).toBeCloseTo(3, 1);
  });

  it('keeps short labels straight when they fit', () => {
    const out = html(BarChart({ id: 's', title: 'S', series: ['Created', 'Resolved'], data: weeks(4) }));
    const labels = labelTexts(out);
    expect(labels).toHaveLength(4);
    for (const l of labels) {
      expect(l.transform).toBeUndefined();
      expect(l['text-anchor']).toBe('middle');
    }
  });
});

describe('histogram', () => {
  it('buckets first-response minutes as [from, to) and draws touching bars', () => {
    expect(FIRST_RESPONSE_BUCKETS.map((b) => b.label)).toEqual([
      '< 15 min',
      '15–60 min',
      '1–4 h',
      '4–24 h',
      '1–3 d',
      '> 3 d',
    ]);
    const data = firstResponseBuckets([0, 14.9, 15, 59.99, 60, 239, 240, 1439, 1440, 4319, 4320, 99999, null, -3]);
    expect(data.map((d) => d.values[0])).toEqual([2, 2, 2, 2, 2, 2]);
    const out = html(Histogram({ id: 'fr', title: 'First response', unit: 'tickets', data }));
    // Straight labels, on two lines where one is too wide for its bar.
    expect(out).toContain('<tspan x="100">15–60</tspan><tspan x="100" dy="14">min</tspan>');
    expect(out).not.toContain('rotate(-45');
    const r = rects(out);
    expect(r).toHaveLength(6);
    const gapBetween = num(r[1].x) - (num(r[0].x) + num(r[0].width));
    expect(gapBetween).toBeLessThan(3);
    expect(out).toContain('<th scope="col" class="num">Tickets</th>');
    expect(out).toContain('&lt; 15 min 2 tickets; 15–60 min 2 tickets;');
  });
});

describe('horizontal bar chart', () => {
  it('draws widths proportional to the values with each value written at its bar end', () => {
    const out = html(
      HBarChart({
        id: 'agents',
        title: 'Resolved per agent',
        category: 'Agent',
        series: ['Resolved'],
        data: [
          { label: 'Ann', values: [12] },
          { label: 'Bartholomew Featherstonehaugh-Smythe', values: [24] },
          { label: 'Cy', values: [6] },
        ],
      }),
    );
    const r = rects(out);
    const w = r.map((b) => num(b.width));
    expect(w[1] / w[0]).toBeCloseTo(2, 1);
    expect(w[0] / w[2]).toBeCloseTo(2, 1);
    for (const [i, b] of r.entries()) {
      const end = num(b.x) + w[i];
      expect(end).toBeLessThanOrEqual(360);
      const value = out.match(new RegExp(`<text x="${Math.round((end + 4) * 100) / 100}" [^>]*>([^<]+)</text>`));
      expect(value?.[1]).toBe(b['data-value']);
    }
    expect(out).toContain('<title>Bartholomew Featherstonehaugh-Smythe</title>Bartholomew Fea…</text>');
    expect(out).toContain('<th scope="row">Bartholomew Featherstonehaugh-Smythe</th>');
  });

  it('draws two series per row, the second striped, with durations in words', () => {
    const out = html(
      HBarChart({
        id: 'fr-agent',
        title: 'First response per agent',
        series: ['Median', 'p90'],
        format: durationText,
        data: [{ label: 'Ann', values: [42, 200] }],
      }),
    );
    const r = rects(out);
    expect(r.map((b) => b.fill)).toEqual([COLOURS[0], 'url(#fr-agent-stripes)']);
    expect(out).toContain('>42 min</text>');
    expect(out).toContain('>3 h 20 min</text>');
    expect(out).toContain('Ann: Median 42 min, p90 3 h 20 min.');
  });
});

describe('words and colours', () => {
  it('says durations in minutes, hours and days', () => {
    expect([0, 44.6, 60, 90, 1439, 1440, 1500, 4319.9].map(durationText)).toEqual([
      '0 min',
      '45 min',
      '1 h',
      '1 h 30 min',
      '23 h 59 min',
      '1 d',
      '1 d 1 h',
      '3 d',
    ]);
  });

  it('uses colours that stand out from white: 3:1 for bars, 4.5:1 for text', () => {
    const lum = (hex: string) => {
      const [r, g, b] = [1, 3, 5].map((i) => {
        const c = Number.parseInt(hex.slice(i, i + 2), 16) / 255;
        return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
      });
      return 0.2126 * r + 0.7152 * g + 0.0722 * b;
    };
    const onWhite = (hex: string) => 1.05 / (lum(hex) + 0.05);
    for (const c of COLOURS) expect(onWhite(c)).toBeGreaterThanOrEqual(4.5);
    expect(onWhite(MUTED)).toBeGreaterThanOrEqual(4.5);
    expect(onWhite(TEXT)).toBeGreaterThanOrEqual(4.5);
  });
});
