import { z } from 'zod';
import { invalid } from '../errors.js';

// SPEC D3 tags (decision 074): a tag is trimmed and lower-cased, then 1–40 characters of
// letters, digits, `-`, `_`, `.`, `/`, `:`. Letters and digits are Unicode's (with the marks
// some scripts write letters with, and in NFC form): "café", "東京" and "ошибка" are tags.
// Tags cannot hold a comma or a space, so a comma-separated list of them is unambiguous.

/** The longest tag, in characters (code points). */
export const TAG_MAX = 40;
const TAG_RE = /^[\p{L}\p{M}\p{N}_./:-]+$/u;
/** How a refused tag is said (after the field's label: "Tag must be …"). */
export const TAG_RULE = `Must be 1–${TAG_MAX} letters, digits or - _ . / : (no spaces)`;

/** The tag as stored, or undefined when it is none. */
export function tagOrNone(raw: unknown): string | undefined {
  if (typeof raw !== 'string') return undefined;
  const tag = raw.normalize('NFC').trim().toLowerCase();
  const n = [...tag].length;
  return n >= 1 && n <= TAG_MAX && TAG_RE.test(tag) ? tag : undefined;
}

/** The tag as stored; a 422 naming `path` when it is none. */
export function normalizeTag(raw: unknown, path = 'tag'): string {
  const tag = tagOrNone(raw);
  if (tag === undefined) throw invalid(path, TAG_RULE);
  return tag;
}

/** One tag in a schema (a body's `tag`, a list's `tag=`): normalized, or the rule said. */
export const zTag = z
  .string()
  .refine((s) => tagOrNone(s) !== undefined, TAG_RULE)
  .transform((s) => tagOrNone(s)!);

/** The most tags one list filter or one bulk change may name. */
export const TAGS_PER_REQUEST_MAX = 20;
