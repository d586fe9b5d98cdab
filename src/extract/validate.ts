import { validateDocumentSchema, validateRulesSchema, type Validator } from '../generated/validators.js';

// The schemas are compiled to standalone validators at build time (scripts/build-validators.mjs), so
// loading the rules on every build does not pay for ajv's compiler.

function run(validate: Validator, value: unknown): { ok: true } | { ok: false; errors: string[] } {
  if (validate(value)) return { ok: true };
  const errors = (validate.errors ?? []).slice(0, 20).map((e) => {
    const property = e.params && 'additionalProperty' in e.params ? ` (${String(e.params.additionalProperty)})` : '';
    return `${e.instancePath || '/'} ${e.message ?? 'is invalid'}${property}`;
  });
  return { ok: false, errors };
}

/** Checks an evidence document against schema/document.schema.json. */
export function validateDocument(doc: unknown): { ok: true } | { ok: false; errors: string[] } {
  return run(validateDocumentSchema, doc);
}

/** Checks one family rules file against schema/rules.schema.json. */
export function validateRules(rules: unknown): { ok: true } | { ok: false; errors: string[] } {
  return run(validateRulesSchema, rules);
}
