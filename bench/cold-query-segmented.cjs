// Cold query at 10,000 sources: whole-process `episteme query`, this build on its segmented index vs the
// base build on its single-file index (same sources), alternating, median of N rounds.
const { spawnSync } = require('node:child_process');
const [thisCli, thisWs, otherCli, otherWs, rounds] = process.argv.slice(2);
if (!otherWs) {
  console.error('usage: node bench/cold-query-segmented.cjs THIS_CLI THIS_WS BASE_CLI BASE_WS [rounds]');
  process.exit(2);
}
const run = (cli, ws) => {
  const t = process.hrtime.bigint();
  const r = spawnSync(
    process.execPath,
    [cli, 'query', '--index', 'chunks/search-index.json', '--term', 'server retry topic5', '--limit', '5', '--json'],
    { cwd: ws, encoding: 'utf8' },
  );
  if (r.status !== 0) throw new Error(r.stdout + r.stderr);
  return [Number(process.hrtime.bigint() - t) / 1e6, r.stdout];
};
const a = [],
  b = [];
let outA, outB;
for (let i = 0; i < Number(rounds ?? 5); i++) {
  const [x, o1] = run(thisCli, thisWs);
  const [y, o2] = run(otherCli, otherWs);
  a.push(x);
  b.push(y);
  outA = o1;
  outB = o2;
}
const med = (v) => v.sort((p, q) => p - q)[v.length >> 1];
console.log(`this (segmented) ${med(a).toFixed(0)} ms, base (single file) ${med(b).toFixed(0)} ms, ratio ${(med(a) / med(b)).toFixed(2)}`);
const strip = (s) => JSON.parse(s).data.hits.map((h) => [h.chunkId, h.score]);
const same = JSON.stringify(strip(outA)) === JSON.stringify(strip(outB));
console.log('same hits and scores:', same);
if (!same) process.exitCode = 1;
