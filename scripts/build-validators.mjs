// Compiles the published JSON Schemas into standalone ajv validators (dist/src/generated/validators.js),
// so the CLI validates with ajv's generated code without paying ajv's import and compile cost (~100 ms)
// on every run.
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import Ajv2020 from 'ajv/dist/2020.js';
import standaloneCode from 'ajv/dist/standalone/index.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const schemas = {
  validateWorkspaceConfig: 'workspace-config.schema.json',
  validateManualIngestMap: 'manual-ingest-map.schema.json',
  validateManifest: 'manifest.schema.json',
  validateEnvelope: 'cli-envelope.schema.json',
  validateArtifact: 'artifact.schema.json',
  validateDocumentSchema: 'document.schema.json',
  validateRulesSchema: 'rules.schema.json',
};
const extra = process.argv.slice(2); // name=file pairs added by later stages
for (const pair of extra) {
  const [name, file] = pair.split('=');
  schemas[name] = file;
}
const ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true, code: { source: true, esm: true } });
const mapping = {};
// The numeric range of every bounded number field, by schema path, so an error about one (wrong type,
// out of range) can say what is allowed: "must be integer (an integer from 1 to 2147483647)".
const ranges = {};
for (const [name, file] of Object.entries(schemas)) {
  const schema = JSON.parse(readFileSync(path.join(root, 'schema', file), 'utf8'));
  ajv.addSchema(schema);
  mapping[name] = schema.$id;
  ranges[name] = numericRanges(schema);
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
// ajv's "esm" output still require()s its small runtime helpers; turn those into imports.
const imports = [];
const code = standaloneCode(ajv, mapping).replace(/require\("([^"]+)"\)/g, (_, specifier) => {
  const name = `runtime${imports.length}`;
  imports.push(`import ${name} from ${JSON.stringify(specifier + '.js')};`);
  return name;
});
writeFileSync(
  path.join(out, 'validators.js'),
  `${imports.join('\n')}\n${code.replace(/^"use strict";/, '')}\nexport const schemaRanges = ${JSON.stringify(ranges)};\n`,
);
