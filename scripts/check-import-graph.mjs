#!/usr/bin/env node
// Fails when the import graph of src/'s folders has a cycle (e.g. graph/ -> cache/ -> graph/). Each
// folder directly under src/ is one node; a file directly under src/ is a node of its own. Static
// imports, re-exports and dynamic import('...') with a literal path all count, type-only ones too: a
// folder that needs another's types depends on it. `--print` prints the edges (for the docs).
import * as fs from 'node:fs';
import * as path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', 'src');
const nodeOf = (file) => {
  const relative = path.relative(root, file).split(path.sep);
  return relative.length === 1 ? relative[0].replace(/\.[jt]s$/, '') : relative[0];
};

function* sourceFiles(dir) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* sourceFiles(full);
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) yield full;
  }
}

const edges = new Map();
const specifier = /(?:\bfrom\s*|\bimport\s*\(\s*)['"](\.{1,2}\/[^'"]+)['"]/g;
for (const file of sourceFiles(root)) {
  const from = nodeOf(file);
  for (const match of fs.readFileSync(file, 'utf8').matchAll(specifier)) {
    const target = path.resolve(path.dirname(file), match[1]);
    if (!target.startsWith(root + path.sep)) continue;
    const to = nodeOf(target);
    if (to === from) continue;
    if (!edges.has(from)) edges.set(from, new Set());
    edges.get(from).add(to);
  }
}

if (process.argv.includes('--print')) for (const [from, tos] of [...edges].sort()) console.log(`${from} -> ${[...tos].sort().join(', ')}`);

// Tarjan's strongly connected components: any component of more than one node is a cycle.
let index = 0;
const indexes = new Map();
const lows = new Map();
const stack = [];
const onStack = new Set();
const cycles = [];
function connect(node) {
  indexes.set(node, index);
  lows.set(node, index);
  index += 1;
  stack.push(node);
  onStack.add(node);
  for (const next of edges.get(node) ?? []) {
    if (!indexes.has(next)) {
      connect(next);
      lows.set(node, Math.min(lows.get(node), lows.get(next)));
    } else if (onStack.has(next)) lows.set(node, Math.min(lows.get(node), indexes.get(next)));
  }
  if (lows.get(node) === indexes.get(node)) {
    const component = [];
    let member;
    do {
      member = stack.pop();
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1) cycles.push(component.sort());
  }
}
for (const node of [...edges.keys()].sort()) if (!indexes.has(node)) connect(node);

if (cycles.length > 0) {
  for (const cycle of cycles) {
    const detail = cycle.map((from) => `  ${from} -> ${[...(edges.get(from) ?? [])].filter((to) => cycle.includes(to)).join(', ')}`);
    console.error(`Import cycle between src/ folders: ${cycle.join(', ')}\n${detail.join('\n')}`);
  }
  process.exit(1);
}
