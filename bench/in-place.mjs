// GET requests in process (app.fetch, no network) on a dataset opened in place, not copied (a 1M
// dataset is 8.7 GB): p50, min and max of n requests after 3 warm-ups, per URL. GETs only: the
// file is migrated on open and gets one API token, nothing else. Build first: npx tsc -p tsconfig.build.json.
//   node bench/in-place.mjs <tree> <hxdesk.db> <n> '/tickets?q=password' '/tickets?q=printer' …
const [root, file, n, ...urls] = process.argv.slice(2);
const { appInProcess } = await import('./appInProcess.mjs');
const { app, token } = await appInProcess(root, file, 'in-place');
for (const url of urls) {
  const ts = [];
  for (let i = 0; i < Number(n) + 3; i++) {
    const t = performance.now();
    const res = await app.fetch(
      new Request(`http://x${url}`, { headers: { authorization: `Bearer ${token}`, accept: 'application/json' } }),
    );
    const body = await res.text();
    if (res.status !== 200) throw new Error(`${url}: ${res.status} ${body.slice(0, 200)}`);
    if (i >= 3) ts.push(performance.now() - t);
  }
  ts.sort((a, b) => a - b);
  console.log(
    `${url}\tp50 ${ts[Math.floor(ts.length / 2)].toFixed(1)}\tmin ${ts[0].toFixed(1)}\tmax ${ts[ts.length - 1].toFixed(1)}`,
  );
}
process.exit(0);
