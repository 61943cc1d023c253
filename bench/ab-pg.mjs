// Two built trees against the same store in one process, request by request alternating which
// goes first: each URL's p50 per tree and their ratio (B ÷ A). Reads only; build both first.
//   DATABASE_URL=postgres://…/<dataset> (or SQLITE=<a copy of hxdesk.db>) [N=200] \
//   node bench/ab-pg.mjs <treeA> <treeB> <url> [url…]   (a url may end in ' html' for the HTML page)
import path from 'node:path';

const [a, b, ...urls] = process.argv.slice(2);
const N = Number(process.env.N ?? 200);
const { appOnStore } = await import('./appInProcess.mjs');
async function app(root) {
  const { call } = await appOnStore(
    path.join(path.resolve(root), 'dist'),
    {
      DATA_DIR: process.env.SQLITE ? path.dirname(process.env.SQLITE) : '/tmp',
      ...(process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : {}),
    },
    'ab',
  );
  // A url ending in ' html' asks for the page.
  return (url) => {
    const [u, kind] = url.split(' ');
    return call(u, kind === 'html' ? 'text/html' : 'application/json');
  };
}
const A = await app(a);
const B = await app(b);
const p50 = (x) => x.sort((p, q) => p - q)[Math.floor(x.length / 2)];
for (const url of urls) {
  const ta = [];
  const tb = [];
  for (let i = 0; i < 10; i++) {
    await A(url);
    await B(url);
  }
  for (let i = 0; i < N; i++) {
    // Alternate which tree goes first, so neither always follows the other's garbage.
    if (i % 2) {
      ta.push(await A(url));
      tb.push(await B(url));
    } else {
      tb.push(await B(url));
      ta.push(await A(url));
    }
  }
  const pa = p50(ta);
  const pb = p50(tb);
  console.log(`${url}\tA ${pa.toFixed(2)}\tB ${pb.toFixed(2)}\tB÷A ${(pb / pa).toFixed(2)}`);
}
process.exit(0);
