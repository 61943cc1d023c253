import { z } from 'zod';

// Field types that accept both JSON values and the strings an HTML form (or query string)
// sends, so one schema validates every representation (SPEC B1).

const digits = /^\d+$/;

/** A positive integer id: 7 or "7". */
export const zId = z.union(
  [
    z.number().int().positive(),
    z
      .string()
      .trim()
      .regex(digits, 'Expected a positive integer id')
      .transform(Number)
      .pipe(z.number().int().positive()),
  ],
  { error: 'Expected a positive integer id' },
);

/** An id, or null to clear it; an empty form value also means null. */
export const zNullableId = z.union([z.literal('').transform(() => null), z.null(), zId]);

export const zInt = (min: number, max: number) =>
  z
    .union(
      [
        z.number(),
        z
          .string()
          .trim()
          .regex(/^-?\d+$/, 'Expected an integer')
          .transform(Number),
      ],
      { error: 'Expected an integer' },
    )
    .pipe(z.number().int('Expected an integer').min(min).max(max));

/** true/false, or the strings a checkbox or query string carries. */
export const zBool = z.preprocess(
  // A checkbox after its hidden "false" fallback arrives as ["false", "true"]: the last one counts.
  (v) => (Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === 'string') ? v[v.length - 1] : v),
  z.union(
    [
      z.boolean(),
      z
        .enum(['true', 'false', 'on', 'off', '1', '0', 'yes', 'no'])
        .transform((v) => ['true', 'on', '1', 'yes'].includes(v)),
    ],
    { error: 'Expected true or false' },
  ),
);

/** A list: a JSON array, a repeated form field, or a single comma-separated string. */
export const zList = <T extends z.ZodType>(item: T) =>
  z.preprocess((v) => {
    if (typeof v === 'string') return v === '' ? [] : v.split(',').map((s) => s.trim());
    // A form's hidden empty field (sent so that "none checked" arrives at all) is not an item.
    if (Array.isArray(v)) return v.filter((x) => x !== '');
    return v;
  }, z.array(item));

/** Trimmed text with a length cap. */
export const zText = (max: number, min = 0) =>
  z
    .string()
    .trim()
    .min(min, min === 1 ? 'Must not be empty' : `At least ${min} characters`)
    .max(max, `At most ${max} characters`);

/** A value that a form may send as JSON text (a textarea), e.g. `{"a":1}`; parsed, then checked. */
export const zJsonText = <T extends z.ZodType>(schema: T) =>
  z.preprocess((v) => {
    if (typeof v !== 'string') return v;
    if (v.trim() === '') return {};
    try {
      return JSON.parse(v);
    } catch {
      return v;
    }
  }, schema);

/** A JSON object given either as an object or as JSON text. */
export const zJsonObject = zJsonText(z.record(z.string(), z.unknown(), { error: 'Expected a JSON object' }));

/** zod issues as SPEC B5 details, with an optional path prefix ("filters.status"). */
export function zodDetails(error: z.ZodError, prefix = ''): { path: string; message: string }[] {
  return error.issues.map((i) => {
    const path = [prefix, ...i.path.map(String)].filter(Boolean).join('.');
    const keys = i.code === 'unrecognized_keys' ? i.keys : [];
    // An unknown key is reported at the key itself, so the caller sees which one.
    if (keys.length > 0) return { path: [path, keys[0]].filter(Boolean).join('.'), message: i.message };
    return { path: path || '(body)', message: i.message };
  });
}
