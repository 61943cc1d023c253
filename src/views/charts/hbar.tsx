// Horizontal bars (decision 083): one row per category (e.g. per agent), names on the left, cut
// when long (the full name in the label's <title> and the table), each bar's value written at its
// end. Rows stack downwards, so any number of agents stays readable at 360 px.
import { WIDTH } from './bar.js';
import { barPaint, type ChartProps, ChartFrame, describe, ids, MUTED, Stripes, TEXT } from './parts.js';
import { CHAR_W, checkData, FONT, formatNumber, maxOf, round, textWidth, truncate } from './scale.js';

const LABEL_CHARS = 16;
const TOP = 4;

export function HBarChart(p: ChartProps) {
  checkData(p.series, p.data);
  if (p.data.length === 0) return <ChartFrame p={p} kind="hbar" children={null} />;
  const fmt = p.format ?? formatNumber;
  const id = ids(p.id);
  const two = p.series.length > 1;
  const barH = two ? 13 : 16;
  const band = two ? 36 : 26;
  const labelW = Math.ceil(Math.max(...p.data.map((d) => textWidth(truncate(d.label, LABEL_CHARS))), CHAR_W) + 8);
  const valueW = Math.ceil(Math.max(...p.data.flatMap((d) => d.values.map((v) => textWidth(fmt(v))))) + 8);
  const plotW = WIDTH - labelW - valueW;
  const max = maxOf(p.data) || 1;
  const height = TOP * 2 + p.data.length * band;
  const unit = p.unit ? ` ${p.unit}` : '';
  return (
    <ChartFrame p={p} kind="hbar">
      <svg
        viewBox={`0 0 ${WIDTH} ${height}`}
        role="img"
        aria-labelledby={id.title}
        aria-describedby={id.desc}
        font-family="system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif"
        font-size={FONT}
      >
        <title id={id.title}>{p.title}</title>
        <desc id={id.desc}>{describe(p)}</desc>
        {two && <Stripes id={id.stripes} />}
        <line x1={labelW} x2={labelW} y1={TOP} y2={height - TOP} stroke={MUTED} />
        {p.data.map((d, r) => {
          const rowTop = TOP + r * band;
          const barsTop = rowTop + (band - barH * p.series.length - (two ? 2 : 0)) / 2;
          const shown = truncate(d.label, LABEL_CHARS);
          return (
            <g class="chart-row">
              <text x={labelW - 6} y={round(rowTop + band / 2 + FONT * 0.35)} text-anchor="end" fill={TEXT}>
                {shown !== d.label && <title>{d.label}</title>}
                {shown}
              </text>
              {d.values.map((v, s) => {
                const w = v > 0 ? Math.max(1, (v / max) * plotW) : 0;
                const top = barsTop + s * (barH + 2);
                return (
                  <g>
                    <rect
                      x={labelW}
                      y={round(top)}
                      width={round(w)}
                      height={barH}
                      data-series={s}
                      data-value={v}
                      {...barPaint(s, id.stripes)}
                    >
                      <title>{`${d.label} — ${p.series[s]}: ${fmt(v)}${unit}`}</title>
                    </rect>
                    <text x={round(labelW + w + 4)} y={round(top + barH / 2 + FONT * 0.35)} fill={TEXT}>
                      {fmt(v)}
                    </text>
                  </g>
                );
              })}
            </g>
          );
        })}
      </svg>
    </ChartFrame>
  );
}
