import fs from 'node:fs';
import { fileURLToPath } from 'node:url';

// The server runs as one bundled module (decision 091): a stack frame then says
// `dist/server.js:41210:9`, not which source file the function lives in. esbuild writes a
// `// src/<path>` line above each file it puts in the bundle; the frame's line falls under the
// last of those above it. A bundle is known by the first line scripts/bundle-server.mjs gives it. Read once per bundle, the first time a frame needs it (a retried unit
// of work's name, an unhandled error's log line): nothing is read on a start or a request.

const BANNER = 'import { createRequire as __hxRequire }';
const marks = new Map<string, { lines: number[]; files: string[] } | null>();

function marksOf(file: string) {
  let m = marks.get(file);
  if (m !== undefined) return m;
  m = null;
  try {
    const text = fs.readFileSync(file.startsWith('file:') ? fileURLToPath(file) : file, 'utf8');
    if (text.startsWith(BANNER)) {
      const lines: number[] = [];
      const files: string[] = [];
      let line = 1;
      for (let at = 0; ; ) {
        const nl = text.indexOf('\n', at);
        const end = nl < 0 ? text.length : nl;
        if (text.startsWith('// src/', at)) {
          lines.push(line);
          files.push(text.slice(at + 3, end));
        }
        if (nl < 0) break;
        at = nl + 1;
        line++;
      }
      m = { lines, files };
    }
  } catch {
    // not a file we can read (node:internal, eval): no source to name
  }
  marks.set(file, m);
  return m;
}

/**
 * The source file (`src/domain/users.ts`) whose code sits at `line` of `file`, when `file` is a
 * bundle esbuild wrote; null for any other file.
 */
export function sourceFileAt(file: string, line: number): string | null {
  const m = marksOf(file);
  if (!m) return null;
  let lo = 0;
  let hi = m.lines.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (m.lines[mid] <= line) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found < 0 ? null : m.files[found];
}

const FRAME = /^(\s*at (?:.+? \()?)(.+?):(\d+):(\d+)(\)?)$/;

/** A stack with each frame in a bundle followed by the source file it came from: `… server.js:41210:9) [src/domain/users.ts]`. */
export function withSourceFiles(stack: string | undefined): string | undefined {
  if (!stack) return stack;
  return stack
    .split('\n')
    .map((line) => {
      const m = FRAME.exec(line);
      if (!m) return line;
      const source = sourceFileAt(m[2], Number(m[3]));
      return source ? `${line} [${source}]` : line;
    })
    .join('\n');
}
