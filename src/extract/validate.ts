import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv';
import { schemaPath } from './package-paths.js';

let ajv: Ajv2020 | undefined;
const compiled = new Map<string, ValidateFunction>();

function validatorFor(schemaFile: string): ValidateFunction {
  const known = compiled.get(schemaFile);
  if (known) return known;
  ajv ??= new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
  const schema = JSON.parse(readFileSync(schemaPath(schemaFile), 'utf8')) as object;
  const validate = ajv.compile(schema);
  compiled.set(schemaFile, validate);
  return validate;
}

function run(schemaFile: string, value: unknown): { ok: true } | { ok: false; errors: string[] } {
  const validate = validatorFor(schemaFile);
  if (validate(value)) return { ok: true };
  const errors = (validate.errors ?? []).slice(0, 20).map((e) => `${e.instancePath || '/'} ${e.message ?? 'is invalid'}${e.params && 'additionalProperty' in e.params ? ` (${String(e.params.additionalProperty)})` : ''}`);
  return { ok: false, errors };
}

/** Checks an evidence document against schema/document.schema.json. */
export function validateDocument(doc: unknown): { ok: true } | { ok: false; errors: string[] } {
  return run('document.schema.json', doc);
}

/** Checks one family rules file against schema/rules.schema.json. */
export function validateRules(rules: unknown): { ok: true } | { ok: false; errors: string[] } {
  return run('rules.schema.json', rules);
}
