/** A tag drawn once per test process: two files that ever share a store or a mail sink never collide. */
const RUN = Math.random().toString(36).slice(2, 7);
let seq = 0;

/**
 * A string no other call returns: `prefix`, a counter and the process's tag (`Billing 3_k2f9x`).
 * What it adds is lower-case letters, digits and `_`, so it fits where `prefix` fits: a name, a
 * subject, a key (`[a-z][a-z0-9_]*`), an e-mail local part.
 */
export const uniq = (prefix: string): string => `${prefix}${++seq}_${RUN}`;

/** A unique lower-case address at `domain`, its local part made from `prefix` (any text). */
export const uniqueAddress = (prefix: string, domain = 'example.com'): string =>
  `${uniq(prefix).replace(/\W+/g, '.')}@${domain}`.toLowerCase();
