// Times every compiled test file on its own (`node --test FILE`), two at a time as `npm test` runs
// them, and prints one line per file, slowest first: the measurement behind the slow list in
// scripts/test-files.mjs. Run after `npm run build`: node scripts/time-tests.mjs [--json OUT]
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

function testFiles(dir) {
  const out = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...testFiles(full));
    else if (entry.name.endsWith('.test.js')) out.push(full);
  }
  return out.sort();
}

const files = testFiles('dist/test');
const results = [];
let next = 0;
async function worker() {
  while (next < files.length) {
    const file = files[next++];
    const start = process.hrtime.bigint();
    const code = await new Promise((resolve) => {
      const child = spawn(process.execPath, ['--test', file], { stdio: ['ignore', 'ignore', 'ignore'] });
      child.on('close', resolve);
    });
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    results.push({ file, seconds, code });
  }
}
const start = Date.now();
await Promise.all([worker(), worker()]);
results.sort((a, b) => b.seconds - a.seconds);
for (const r of results) console.log(`${r.seconds.toFixed(1).padStart(7)} s  ${r.code === 0 ? 'ok  ' : 'FAIL'}  ${r.file}`);
console.log(`total wall ${((Date.now() - start) / 1000).toFixed(0)} s, sum ${results.reduce((s, r) => s + r.seconds, 0).toFixed(0)} s`);
const jsonAt = process.argv.indexOf('--json');
if (jsonAt >= 0) fs.writeFileSync(process.argv[jsonAt + 1], JSON.stringify(results, null, 1) + '\n');
