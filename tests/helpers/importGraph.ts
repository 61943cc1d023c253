import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

// The import graph of src/, read with TypeScript's own parser (not regular expressions), for
// tests/architecture.test.ts (docs/decisions/046). Every edge says whether it exists at run time:
//  - `import type …`, `export type … from` and `import('…')` in a type position are type-only:
//    erased by the compiler, they load nothing;
//  - everything else runs: `import x`, `import './side-effect'`, `export … from`, `export * from`,
//    `import x = require()`, a dynamic `import('…')`, a worker started from
//    `new URL('./file', import.meta.url)` — and `import { type A, type B } from` too: under
//    `verbatimModuleSyntax` (tsconfig.json) tsc and tsx both keep it as `import {} from`, which
//    loads the module (measured: decision 046). Only `import type` is erased.
// Only our own files are nodes; packages and node: builtins are left out (their rules, such as
// "no driver outside src/db", are kept by the text checks of the architecture test).

export type EdgeKind = 'static' | 'dynamic' | 'reexport' | 'worker';

export interface ImportEdge {
  /** The importing file, relative to the project root with forward slashes (`src/views/layout.tsx`). */
  from: string;
  /** The imported file, resolved the way Node (NodeNext) and tsx resolve it. */
  to: string;
  /** The specifier as written. */
  specifier: string;
  /** 1-based line of the import. */
  line: number;
  kind: EdgeKind;
  /** Erased at compile time: nothing is loaded at run time. */
  typeOnly: boolean;
}

export interface ImportGraph {
  files: string[];
  edges: ImportEdge[];
  /** Relative specifiers that name no file (a broken import is a finding too). */
  unresolved: Array<{ from: string; specifier: string; line: number }>;
}

const SOURCE = /\.(ts|tsx|mts|mjs|js)$/;

function walk(root: string, dir: string): string[] {
  return fs.readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = path.posix.join(dir, e.name);
    if (e.isDirectory()) return walk(root, rel);
    return SOURCE.test(e.name) && !e.name.endsWith('.d.ts') ? [rel] : [];
  });
}

/** `./x.js` may be x.ts, x.tsx (NodeNext rewrites the extension), or the file itself; a folder its index. */
function resolve(root: string, from: string, specifier: string): string | undefined {
  const base = path.posix.join(path.posix.dirname(from), specifier);
  const stem = base.replace(/\.(js|jsx|mjs|cjs|ts|tsx|mts)$/, '');
  const candidates = [
    base,
    `${stem}.ts`,
    `${stem}.tsx`,
    `${stem}.mts`,
    `${stem}.mjs`,
    `${stem}.js`,
    `${base}/index.ts`,
    `${base}/index.tsx`,
    `${base}/index.js`,
  ];
  return candidates.find((c) => fs.existsSync(path.join(root, c)) && fs.statSync(path.join(root, c)).isFile());
}

function scriptKind(file: string): ts.ScriptKind {
  if (file.endsWith('.tsx')) return ts.ScriptKind.TSX;
  if (file.endsWith('.mjs') || file.endsWith('.js')) return ts.ScriptKind.JS;
  return ts.ScriptKind.TS;
}

interface RawImport {
  specifier: string;
  node: ts.Node;
  kind: EdgeKind;
  typeOnly: boolean;
}

function importsOf(sf: ts.SourceFile): RawImport[] {
  const out: RawImport[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      // `import './x'` and `import { type A } from './x'` run x (verbatimModuleSyntax keeps the
      // latter as `import {} from './x'`); only `import type …` does not.
      out.push({ specifier: node.moduleSpecifier.text, node, kind: 'static', typeOnly: clause?.isTypeOnly ?? false });
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      // Likewise `export { type A } from './x'` stays `export {} from './x'`: only `export type` is erased.
      out.push({ specifier: node.moduleSpecifier.text, node, kind: 'reexport', typeOnly: node.isTypeOnly });
    } else if (
      ts.isImportEqualsDeclaration(node) &&
      ts.isExternalModuleReference(node.moduleReference) &&
      ts.isStringLiteral(node.moduleReference.expression)
    ) {
      out.push({ specifier: node.moduleReference.expression.text, node, kind: 'static', typeOnly: node.isTypeOnly });
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const arg = node.arguments[0];
      if (arg && ts.isStringLiteralLike(arg)) out.push({ specifier: arg.text, node, kind: 'dynamic', typeOnly: false });
    } else if (
      ts.isImportTypeNode(node) &&
      ts.isLiteralTypeNode(node.argument) &&
      ts.isStringLiteral(node.argument.literal)
    ) {
      out.push({ specifier: node.argument.literal.text, node, kind: 'static', typeOnly: true });
    } else if (
      ts.isNewExpression(node) &&
      ts.isIdentifier(node.expression) &&
      node.expression.text === 'URL' &&
      node.arguments?.length === 2 &&
      /^import\.meta\.url$/.test(node.arguments[1].getText(sf))
    ) {
      // A worker thread's entry file: `new URL(fromSource ? './w.source.mjs' : './w.js', import.meta.url)`.
      const literals: string[] = [];
      const collect = (n: ts.Node): void => {
        if (ts.isStringLiteralLike(n)) literals.push(n.text);
        else n.forEachChild(collect);
      };
      collect(node.arguments[0]);
      for (const text of literals)
        if (text.startsWith('.')) out.push({ specifier: text, node, kind: 'worker', typeOnly: false });
    }
    node.forEachChild(visit);
  };
  visit(sf);
  return out;
}

/** Reads every source file under `dirs` (default src/) of the project at `root`. */
export function importGraph(root: string, dirs: string[] = ['src']): ImportGraph {
  const files = dirs.flatMap((d) => walk(root, d)).sort();
  const edges: ImportEdge[] = [];
  const unresolved: ImportGraph['unresolved'] = [];
  for (const from of files) {
    const text = fs.readFileSync(path.join(root, from), 'utf8');
    const sf = ts.createSourceFile(from, text, ts.ScriptTarget.Latest, true, scriptKind(from));
    for (const imp of importsOf(sf)) {
      if (!imp.specifier.startsWith('.')) continue;
      const line = sf.getLineAndCharacterOfPosition(imp.node.getStart(sf)).line + 1;
      const to = resolve(root, from, imp.specifier);
      // A worker's compiled entry (`./w.js` beside dist/) has no source twin by that name: not a finding.
      if (!to) {
        if (imp.kind !== 'worker') unresolved.push({ from, specifier: imp.specifier, line });
        continue;
      }
      if (to === from) continue;
      edges.push({ from, to, specifier: imp.specifier, line, kind: imp.kind, typeOnly: imp.typeOnly });
    }
  }
  return { files, edges, unresolved };
}

/**
 * The import circles among `edges`: each strongly connected component of more than one file
 * (Tarjan), with one concrete circle through it for the message.
 */
export function importCycles(files: string[], edges: ImportEdge[]): Array<{ files: string[]; circle: string[] }> {
  const next = new Map<string, string[]>(files.map((f) => [f, []]));
  for (const e of edges) next.get(e.from)?.push(e.to);
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const strong = (v: string): void => {
    index.set(v, counter);
    low.set(v, counter);
    counter++;
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        strong(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const comp: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        comp.push(w);
      } while (w !== v);
      if (comp.length > 1) components.push(comp.sort());
    }
  };
  for (const f of files) if (!index.has(f)) strong(f);
  return components.map((comp) => {
    // A shortest way back to the first file, within the component (breadth-first).
    const inComp = new Set(comp);
    const start = comp[0];
    const prev = new Map<string, string>();
    const queue = [start];
    let found: string | undefined;
    while (queue.length && !found) {
      const v = queue.shift()!;
      for (const w of next.get(v) ?? []) {
        if (!inComp.has(w)) continue;
        if (w === start) {
          found = v;
          break;
        }
        if (!prev.has(w)) {
          prev.set(w, v);
          queue.push(w);
        }
      }
    }
    const circle = [start];
    for (let v = found; v && v !== start; v = prev.get(v)) circle.splice(1, 0, v);
    circle.push(start);
    return { files: comp, circle };
  });
}
