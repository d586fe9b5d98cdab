// Lists every source line longer than Biome's line width. Biome formats code to that width but leaves
// string literals, template literals and comments as they are, so long ones need this separate check.
//
// Usage: node scripts/check-line-length.mjs [FILE...]
// Run from the repository root (like biome). Without FILEs it checks the JavaScript and TypeScript files
// that biome.json's "files.includes" selects; prints "file:line: length" for each long line and exits 1
// if there is any (2 for a usage error). Length counts characters (code points), not bytes or UTF-16 units.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const CODE_FILE = /\.(?:[cm]?[jt]s|[jt]sx)$/;

function usageError(message) {
  process.stderr.write(`check-line-length: ${message}\n`);
  process.exit(2);
}

let config;
try {
  config = JSON.parse(readFileSync('biome.json', 'utf8'));
} catch (error) {
  usageError(`cannot read biome.json in ${process.cwd()} (run from the repository root): ${error.message}`);
}
const maxLength = config.formatter?.lineWidth;
if (!Number.isInteger(maxLength)) usageError('biome.json has no integer formatter.lineWidth');

/** The folders to walk and the paths to leave out, from include patterns such as "src/**" and "!test/fixtures". */
function parseIncludes(patterns) {
  const roots = [];
  const excluded = [];
  const rootFiles = [];
  for (const pattern of patterns) {
    if (pattern.startsWith('!')) excluded.push(pattern.slice(1).replace(/\/\*\*$/, ''));
    else if (pattern.endsWith('/**') && !pattern.slice(0, -3).includes('*')) roots.push(pattern.slice(0, -3));
    else if (/^\*\.[\w.]+$/.test(pattern)) rootFiles.push(pattern.slice(1));
    else usageError(`unsupported biome.json include pattern ${JSON.stringify(pattern)}; teach parseIncludes its form`);
  }
  return { roots, excluded, rootFiles };
}

function byCodeUnit(a, b) {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Code files under a folder, as forward-slash paths, skipping excluded paths; symlinks are not followed. */
function walk(folder, excluded, found) {
  let entries;
  try {
    entries = readdirSync(folder, { withFileTypes: true });
  } catch (error) {
    if (error.code === 'ENOENT') return;
    throw error;
  }
  for (const entry of entries) {
    const file = `${folder}/${entry.name}`;
    if (excluded.includes(file)) continue;
    if (entry.isDirectory() && entry.name !== 'node_modules') walk(file, excluded, found);
    else if (entry.isFile() && CODE_FILE.test(entry.name)) found.push(file);
  }
}

function selectedFiles() {
  const includes = config.files?.includes;
  if (!Array.isArray(includes)) usageError('biome.json has no files.includes list');
  const { roots, excluded, rootFiles } = parseIncludes(includes);
  const found = [];
  for (const root of roots) walk(root, excluded, found);
  for (const entry of readdirSync('.', { withFileTypes: true })) {
    if (entry.isFile() && CODE_FILE.test(entry.name) && rootFiles.some((suffix) => entry.name.endsWith(suffix))) found.push(entry.name);
  }
  return found.sort(byCodeUnit);
}

const files = process.argv.length > 2 ? process.argv.slice(2).map((file) => file.split(path.sep).join('/')) : selectedFiles();
let longLines = 0;
for (const file of files) {
  let text;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    usageError(`cannot read ${file}: ${error.message}`);
  }
  const lines = text.split('\n');
  lines.forEach((line, index) => {
    const length = [...(line.endsWith('\r') ? line.slice(0, -1) : line)].length;
    if (length > maxLength) {
      longLines += 1;
      process.stdout.write(`${file}:${index + 1}: ${length}\n`);
    }
  });
}
if (longLines > 0) {
  process.stderr.write(`${longLines} line(s) longer than ${maxLength} characters (biome.json formatter.lineWidth)\n`);
  process.exitCode = 1;
}
