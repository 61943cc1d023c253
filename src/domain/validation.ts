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
      .regex(digits, 'must be an id (a positive whole number)')
      .transform(Number)
      .pipe(z.number().int().positive()),
  ],
  { error: 'must be an id (a positive whole number)' },
);

/** An id, or null to clear it; an empty form value also means null. */
export const zNullableId = z.union([z.literal('').transform(() => null), z.null(), zId], {
  error: 'must be an id (a positive whole number), or empty',
});

export const zInt = (min: number, max: number) => {
  const range = `must be a whole number between ${min} and ${max}`;
  return z
    .union(
      [
        z.number(),
        z
          .string()
          .trim()
          .regex(/^-?\d+$/, range)
          .transform(Number),
      ],
      { error: range },
    )
    .pipe(
      z.number().int(range).min(min, `must be between ${min} and ${max}`).max(max, `must be between ${min} and ${max}`),
    );
};

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
    { error: 'must be true or false' },
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
    .min(min, min === 1 ? 'must not be empty' : `must be at least ${min} characters long`)
    .max(max, `must be at most ${max} characters long`);

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
export const zJsonObject = zJsonText(z.record(z.string(), z.unknown(), { error: 'must be a JSON object' }));

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

// ---- Errors in words (SPEC D6, decision 052) ----------------------------------------------------
// A refused field is said in words with its human label ("Priority must be between 0 and 100"),
// never in a library's wording or by a raw key. Schemas give their own words where they can; zod's
// own messages are replaced by the words below (a safety net for any schema without them); and
// every detail of an error is phrased once more with its field's label (`inWords`) when answered.

const plural = (n: unknown, one: string, many: string) => `${n} ${Number(n) === 1 ? one : many}`;
const TYPE_WORDS: Record<string, string> = {
  number: 'a number',
  int: 'a whole number',
  string: 'text',
  boolean: 'true or false',
  array: 'a list',
  object: 'an object',
  date: 'a date',
  bigint: 'a whole number',
  null: 'empty (null)',
};
const FORMAT_WORDS: Record<string, string> = {
  email: 'an e-mail address',
  url: 'a URL',
  regex: 'in the expected format',
  datetime: 'a date and time (ISO 8601)',
  date: 'a date (YYYY-MM-DD)',
  uuid: 'a UUID',
};

/** zod's message for an issue no schema worded: a predicate the field's label goes before ("must be at most 100"). */
export function zodIssueWords(iss: z.core.$ZodRawIssue): string {
  switch (iss.code) {
    case 'invalid_type':
      return iss.input === undefined ? 'is required' : `must be ${TYPE_WORDS[iss.expected] ?? iss.expected}`;
    case 'too_big': {
      const max = iss.maximum as number;
      if (iss.origin === 'string') return `must be at most ${plural(max, 'character', 'characters')} long`;
      if (iss.origin === 'array' || iss.origin === 'set') return `must have at most ${plural(max, 'item', 'items')}`;
      if (iss.origin === 'file') return `must be at most ${max} bytes`;
      return iss.inclusive === false ? `must be less than ${max}` : `must be at most ${max}`;
    }
    case 'too_small': {
      const min = iss.minimum as number;
      if (iss.origin === 'string')
        return min === 1 ? 'must not be empty' : `must be at least ${plural(min, 'character', 'characters')} long`;
      if (iss.origin === 'array' || iss.origin === 'set')
        return min === 1 ? 'must have at least one item' : `must have at least ${plural(min, 'item', 'items')}`;
      return iss.inclusive === false ? `must be more than ${min}` : `must be at least ${min}`;
    }
    case 'invalid_value':
      return iss.values.length === 1
        ? `must be ${JSON.stringify(iss.values[0])}`
        : `must be one of: ${iss.values.map(String).join(', ')}`;
    case 'invalid_format':
      return `must be ${FORMAT_WORDS[iss.format] ?? `a valid ${iss.format}`}`;
    case 'not_multiple_of':
      return `must be a multiple of ${iss.divisor}`;
    case 'unrecognized_keys':
      return `${iss.keys.length === 1 ? 'Unknown field' : 'Unknown fields'} ${iss.keys.map((k) => `"${k}"`).join(', ')}`;
    case 'invalid_key':
    case 'invalid_element':
      return 'holds a value that is not accepted';
    default:
      return 'is not an accepted value';
  }
}
z.config({ customError: (iss) => zodIssueWords(iss) });

/** The human names of the fields whose key does not say it plainly. */
const LABELS: Record<string, string> = {
  '(body)': 'The request',
  body: 'Message',
  ids: 'Ticket',
  set_status: 'Status to set',
  creator_id: 'Writer',
  return_to: 'Return address',
  seen_transaction_id: 'Last seen entry',
  admin_cc: 'AdminCc',
  cc: 'Cc',
  q: 'Search text',
  _method: 'Method',
  mail_alias: 'Mail address',
  sort_order: 'Order',
  content_base64: 'File content',
  time_minutes: 'Minutes worked',
  worked_on: 'Date worked',
  live_ids: 'Live ticket ids',
};

/** A field's label from its path: "priority" → "Priority", "changes.owner_id" → "Owner", "ids.2" → "Ticket 3". */
export function fieldLabel(path: string): string {
  const parts = path.split('.');
  const index = /^\d+$/.test(parts[parts.length - 1] ?? '') ? Number(parts.pop()) : undefined;
  const last = parts[parts.length - 1] ?? path;
  const base =
    LABELS[last] ??
    (() => {
      const text = last.replace(/_id$/, '').replace(/_ids$/, 's').replaceAll('_', ' ').trim();
      return text.charAt(0).toUpperCase() + text.slice(1);
    })();
  return index === undefined ? base : `${base} ${index + 1}`.replace(/^Ticket (\d+)$/, 'Ticket id $1');
}

/**
 * A field's message as a sentence that names it: "must be at most 100" → "Priority must be at
 * most 100"; "Expected one of: …" → "Status must be one of: …"; "At most 7 values" → "Columns: at
 * most 7 values"; "Required" → "Subject is required". A message that is a sentence already (it
 * starts with a capital and is none of these) is kept: "Team 9 does not exist".
 */
export function inWords(path: string, message: string): string {
  const label = fieldLabel(path);
  // "must be …", "is required": the label begins the sentence (a message naming a value, "ann@x.org is …", stands as it is).
  if (/^[a-z]+\s/.test(message)) return `${label} ${message}`;
  if (/^Must /.test(message)) return `${label} must ${message.slice(5)}`;
  if (/^Expected /.test(message)) return `${label} must be ${message.slice(9)}`;
  if (/^(At most|At least|Only) /.test(message))
    return `${label}: ${message.charAt(0).toLowerCase()}${message.slice(1)}`;
  if (message === 'Required') return `${label} is required`;
  return message;
}
