// Round trips per unit of work on PostgreSQL (docs/decisions/066): every statement a unit of
// work's connection sends, BEGIN and COMMIT included, counted per operation in this process's
// memory. Through the bench's relay (about 2.8 ms per round trip) the count is most of what a
// write costs; tests read it to keep a write from quietly growing more of them.

/** Statements sent on each pool connection since it opened. */
const perConnection = new WeakMap<object, number>();

export const countStatement = (client: object) => perConnection.set(client, (perConnection.get(client) ?? 0) + 1);
export const statementsOn = (client: object) => perConnection.get(client) ?? 0;

export interface StatementCount {
  /** Units of work of this operation that committed. */
  units: number;
  /** Statements of the last one, and the most any one sent. */
  last: number;
  max: number;
  /** All statements of all of them (the mean is statements ÷ units). */
  statements: number;
}

const byOperation = new Map<string, StatementCount>();

/** A committed unit of work of `op` that sent `n` statements. */
export function recordUnit(op: string, n: number): void {
  let c = byOperation.get(op);
  if (!c) byOperation.set(op, (c = { units: 0, last: 0, max: 0, statements: 0 }));
  c.units++;
  c.last = n;
  c.max = Math.max(c.max, n);
  c.statements += n;
}

/** Statement counts per operation since the process started (or the last reset), operations A→Z. */
export function writeStatements(): Record<string, StatementCount> {
  return Object.fromEntries([...byOperation].sort(([a], [b]) => a.localeCompare(b)).map(([op, c]) => [op, { ...c }]));
}

/** Forgets the counts (tests measure one operation at a time). */
export function resetWriteStatements(): void {
  byOperation.clear();
}
