import { STATUS_LABEL } from '../format.js';

// SPEC D3: statuses in their lifecycle's colors (decision 073). RT's default statuses keep their
// own look; a lifecycle's other statuses get a swatch of their color on the badge, by class, from
// one small style element (names are lower-case letters and _, colors #rrggbb: both checked when
// the lifecycle is saved, so the rule text is plain).

const SAFE_NAME = /^[a-z][a-z_]{0,39}$/;
const SAFE_COLOR = /^#[0-9a-fA-F]{6}$/;

/** A status in words: its label, or its name with spaces (waiting_on_parts → Waiting on parts). */
export const statusText = (s: string) => {
  const known = STATUS_LABEL[s];
  if (known) return known;
  const words = s.replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
};

/** The badge colors of the statuses that are not RT's default ones. */
export function StatusColors({ colors }: { colors?: Record<string, string> }) {
  const rules = Object.entries(colors ?? {})
    .filter(([name, color]) => !(name in STATUS_LABEL) && SAFE_NAME.test(name) && SAFE_COLOR.test(color))
    .map(([name, color]) => `.status-${name}{box-shadow:inset 0.45rem 0 0 ${color};padding-left:0.8rem}`)
    .join('');
  return rules ? <style>{rules}</style> : null;
}
