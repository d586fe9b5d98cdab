import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { loadFamilies, parseFamilyRules } from '../../src/extract/families.js';
import { checkFamilySelectors, selectorProblem, MAX_SELECTOR_NESTING } from '../../src/extract/html/selector-check.js';
import { REPO_ROOT } from '../helpers/rig.js';

/**
 * The built-in family rules (rules/*.json) pass the same selector check a workspace family's rules
 * pass as they load (selector-check.ts: each selector parses, nests within the bound, each list within
 * its length), so no built-in rule can be an internal-error on every document of its family.
 */
const dir = path.join(REPO_ROOT, 'rules');
const files = fs.readdirSync(dir).filter((name) => name.endsWith('.json'));

test("every built-in family passes the workspace families' selector check", () => {
  assert.ok(files.length >= 7, files.join(', '));
  for (const name of files) {
    const rules = parseFamilyRules(fs.readFileSync(path.join(dir, name)), `rules/${name}`, name);
    assert.doesNotThrow(() => checkFamilySelectors(rules, `rules/${name}`), name);
  }
  // And the families the build loads are these files (the code's own copy, when it has one).
  assert.deepEqual(
    loadFamilies()
      .map((family) => `${family.rules.id}.json`)
      .sort(),
    [...files].sort(),
  );
});

test('the check refuses each built-in family with one selector broken (it can fail)', () => {
  for (const name of files) {
    const rules = parseFamilyRules(fs.readFileSync(path.join(dir, name)), `rules/${name}`, name);
    if (rules.html === undefined) continue;
    const html = rules.html as unknown as Record<string, unknown>;
    const field = Object.keys(html).find((key) => key.endsWith('Selectors') && Array.isArray(html[key]));
    if (field === undefined) continue;
    for (const broken of ['p:not(', `${':is('.repeat(MAX_SELECTOR_NESTING + 1)}p${')'.repeat(MAX_SELECTOR_NESTING + 1)}`]) {
      const edited = { ...html, [field]: [...(html[field] as string[]), broken] };
      assert.notEqual(selectorProblem(edited as unknown as NonNullable<typeof rules.html>), null, `${name}: ${broken.slice(0, 20)}`);
    }
  }
});
