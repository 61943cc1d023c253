// uuencoded files inside a text body (`begin 644 name` … `end`), as old mail clients and
// scripts still send them. RT extracts them as attachments; so do we, and the text keeps the
// rest. Only a block whose every line is well formed counts: prose that merely starts with
// "begin" stays text.

const DATA_LINE = /^[\x20-\x60]+$/;

/** The bytes of the data lines of one uuencoded block, or null when a line is malformed. */
export function uudecodeLines(lines: string[]): Buffer | null {
  const out: number[] = [];
  for (const raw of lines) {
    const line = raw.replace(/\r$/, '');
    if (line === '' || line === '`' || line === ' ') continue;
    if (!DATA_LINE.test(line)) return null;
    const n = (line.charCodeAt(0) - 32) & 63;
    if (n === 0) continue;
    if (line.length < 1 + Math.ceil(n / 3) * 4 - 1) return null; // some encoders drop trailing padding
    const v = (i: number) => ((line.charCodeAt(i) || 32) - 32) & 63;
    for (let i = 1, left = n; left > 0; i += 4) {
      const [a, b, c, d] = [v(i), v(i + 1), v(i + 2), v(i + 3)];
      out.push(((a << 2) | (b >> 4)) & 255);
      if (left > 1) out.push(((b << 4) | (c >> 2)) & 255);
      if (left > 2) out.push(((c << 6) | d) & 255);
      left -= 3;
    }
  }
  return Buffer.from(out);
}

/**
 * The body of a part sent with `Content-Transfer-Encoding: x-uuencode` (or `uuencode`): the data
 * between its `begin 644 name` and `end` lines (as CPython decodes it), or, without a `begin`
 * line, every line as data; null when it is not well formed (the part is then kept as it came).
 */
export function uudecodePart(text: string): Buffer | null {
  const lines = text.split(/\r?\n/);
  const begin = lines.findIndex((l) => /^begin [0-7]{3,4}( |$)/.test(l));
  if (begin < 0) return uudecodeLines(lines);
  const end = lines.findIndex((l, i) => i > begin && l.trimEnd() === 'end');
  return end < 0 ? null : uudecodeLines(lines.slice(begin + 1, end));
}

export interface UuFile {
  filename: string;
  content: Buffer;
}

/** Takes the well-formed uuencoded blocks out of a text: the files, and the text without them. */
export function extractUuencoded(text: string): { text: string; files: UuFile[] } {
  if (!/^begin [0-7]{3,4} /m.test(text)) return { text, files: [] };
  const lines = text.split('\n');
  const kept: string[] = [];
  const files: UuFile[] = [];
  for (let i = 0; i < lines.length; i++) {
    const begin = /^begin ([0-7]{3,4}) (.+?)\s*$/.exec(lines[i]);
    if (begin) {
      let end = i + 1;
      while (
        end < lines.length &&
        lines[end].trimEnd() !== 'end' &&
        DATA_LINE.test(lines[end].replace(/\r$/, '') || ' ')
      )
        end++;
      const content =
        end < lines.length && lines[end].trimEnd() === 'end' ? uudecodeLines(lines.slice(i + 1, end)) : null;
      if (content) {
        files.push({ filename: begin[2], content });
        i = end;
        continue;
      }
    }
    kept.push(lines[i]);
  }
  return { text: kept.join('\n'), files };
}
