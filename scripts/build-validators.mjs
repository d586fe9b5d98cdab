// Compiles the published JSON Schemas into standalone ajv validators (dist/src/generated/validators.js),
// so the CLI validates with ajv's generated code without paying ajv's import and compile cost (~100 ms)
// on every run.
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import Ajv2020 from 'ajv/dist/2020.js';
import standaloneCode from 'ajv/dist/standalone/index.js';
import { build } from 'esbuild';
import { upToDate } from './up-to-date.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const extra = process.argv.slice(2); // name=file pairs added by later stages
// The inputs: the schemas, this script, and ajv's version (the lockfile).
const inputs = ['schema', fileURLToPath(import.meta.url), 'package-lock.json'].map((file) => path.resolve(root, file));
if (extra.length === 0 && upToDate([path.join(root, 'dist', 'src', 'generated', 'validators.js')], inputs)) process.exit(0);
const schemas = {
  validateWorkspaceConfig: 'workspace-config.schema.json',
  validateManualIngestMap: 'manual-ingest-map.schema.json',
  validateManifest: 'manifest.schema.json',
  validateEnvelope: 'cli-envelope.schema.json',
  validateArtifact: 'artifact.schema.json',
  validateDocumentSchema: 'document.schema.json',
  validateRulesSchema: 'rules.schema.json',
};
for (const pair of extra) {
  const [name, file] = pair.split('=');
  schemas[name] = file;
}
const ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true, code: { source: true, esm: true } });
const mapping = {};
// The numeric range of every bounded number field, by schema path, so an error about one (wrong type,
// out of range) can say what is allowed: "must be integer (an integer from 1 to 2147483647)".
const ranges = {};
// The field names of every closed object (additionalProperties: false), by schema path, so an unknown
// field can be answered with the nearest known one: unknown field "famly" (did you mean "family"?).
const fields = {};
for (const [name, file] of Object.entries(schemas)) {
  const schema = JSON.parse(readFileSync(path.join(root, 'schema', file), 'utf8'));
  ajv.addSchema(schema);
  mapping[name] = schema.$id;
  ranges[name] = numericRanges(schema);
  fields[name] = closedObjectFields(schema);
}

function closedObjectFields(schema) {
  const found = {};
  const visit = (node, pointer) => {
    if (node === null || typeof node !== 'object') return;
    if (node.additionalProperties === false && node.properties) found[pointer] = Object.keys(node.properties);
    for (const [key, value] of Object.entries(node)) visit(value, `${pointer}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`);
  };
  visit(schema, '#');
  return found;
}

function numericRanges(schema) {
  const found = {};
  const visit = (node, pointer) => {
    if (node === null || typeof node !== 'object') return;
    if ((node.type === 'integer' || node.type === 'number') && (node.minimum !== undefined || node.maximum !== undefined)) {
      found[pointer] = { type: node.type, min: node.minimum ?? null, max: node.maximum ?? null };
    }
    for (const [key, value] of Object.entries(node)) visit(value, `${pointer}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`);
  };
  visit(schema, '#');
  return found;
}
const out = path.join(root, 'dist', 'src', 'generated');
mkdirSync(out, { recursive: true });
// ajv's standalone code require()s its small CommonJS runtime helpers (`require("ajv/dist/runtime/
// ucs2length").default`). Importing a CommonJS module from an ES module is where runtimes disagree:
// Node's default import is `module.exports`, Bun's is `exports.default` when `__esModule` is set, so
// `.default` of it was undefined on Bun ("func1 is not a function"). Keep the CommonJS `require`
// and let esbuild inline those helpers: the output is one self-contained ES module that imports
// nothing, the same code on every runtime.
const code = standaloneCode(ajv, mapping).replace(/^"use strict";/, '');
const bundled = await build({
  stdin: {
    contents: `${code}\nexport const schemaRanges = ${JSON.stringify(ranges)};\nexport const schemaFields = ${JSON.stringify(fields)};\n`,
    resolveDir: root,
    sourcefile: 'validators.js',
    loader: 'js',
  },
  bundle: true,
  format: 'esm',
  platform: 'neutral',
  mainFields: ['main'],
  preserveSymlinks: true,
  target: 'es2022',
  write: false,
  metafile: true,
  outfile: 'validators.js',
  // No comments: esbuild would name each inlined file by its path on this machine.
  minifyWhitespace: true,
  legalComments: 'none',
  logLevel: 'warning',
});
// The guarantee above, checked: the output imports nothing.
const [output] = Object.values(bundled.metafile.outputs);
if (output.imports.length > 0)
  throw new Error(
    `build-validators: the generated validators still import ${output.imports.map((entry) => entry.path).join(', ')}; ` +
      'they must be self-contained',
  );
const text = bundled.outputFiles[0].text;
writeFileSync(path.join(out, 'validators.js'), text);
