// Word search (decision 084): which `q` is a search for words, and the meaning of one, in one
// place for both stores (SQLite's FTS5 unicode61 index, PostgreSQL's tsvector index) and for the
// text tested row by row (SQLite's rows not yet indexed, a requester's own tickets).

/** A q that is a search for words: its words folded (case, diacritics), in order; the last one is a prefix. */
export interface WordPlan {
  words: string[];
  /** The words joined by spaces: how the plan travels to SQL functions (hx_words). */
  key: string;
}

/** Letters and digits only, two or more of them. */
const WORD = /^[\p{L}\p{N}]{2,}$/u;
/** At most this many words go to the word index; a longer q is a search for its text (trigrams). */
const MAX_WORDS = 8;

/** Case and diacritics folded as the word indexes fold them (é → e, Ö → o, ß stays). */
export function foldWord(text: string): string {
  // ASCII (most mail) has nothing to decompose: lower case only, without NFD's copy of the text.
  if (!NON_ASCII.test(text)) return text.toLowerCase();
  return text
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase();
}
const NON_ASCII = /[^\x00-\x7f]/;

/**
 * The words of q when q is made of whole words (letters and digits, two or more each, split by
 * spaces); undefined for anything else — a `@`, `-`, `.`, a one-letter word — which keeps the
 * substring (trigram) search.
 */
export function wordPlan(q: string): WordPlan | undefined {
  const parts = q.normalize('NFC').trim().split(/\s+/u);
  if (parts.length > MAX_WORDS || !parts.every((p) => WORD.test(p))) return undefined;
  const words = parts.map(foldWord);
  // Folding may leave a mark-only word empty or shorter; such a q is not a word search.
  if (!words.every((w) => WORD.test(w))) return undefined;
  return { words, key: words.join(' ') };
}

const matchers = new Map<string, (text: string) => boolean>();

/**
 * The test of one text against a plan's key: its words in a row (any non-letters between them),
 * each starting a word of the text, the last one a prefix. Kept for the last few keys.
 */
export function wordMatcher(key: string): (text: string) => boolean {
  let m = matchers.get(key);
  if (m) return m;
  const words = key.split(' ').map((w) => w.replace(/[^\p{L}\p{N}]/gu, ''));
  const body = words.join('[^\\p{L}\\p{N}]+');
  const re = new RegExp(`(?<![\\p{L}\\p{N}])${body}`, 'u');
  m = (text) => re.test(foldWord(text));
  if (matchers.size >= 64) matchers.delete(matchers.keys().next().value as string);
  matchers.set(key, m);
  return m;
}
