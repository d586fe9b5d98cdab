import { compileSelector } from './selector-compile.js';
import { EpistemeError } from '../../failure.js';
import type { FamilyRules, HtmlRules } from '../families.js';

/** Bounds on a family's selector lists: checked when the rules load, so no document pays for a bad rule. */
export const MAX_SELECTORS_PER_LIST = 512;
export const MAX_SELECTOR_LENGTH = 2048;
export const MAX_SELECTOR_NESTING = 16;

/**
 * Why the selector lists of a family's HTML rules cannot be compiled, as [field, item, problem], or
 * null when every one compiles within the bounds: a list too long, a selector too long or nested too
 * deep (`:not(:is(...))` and brackets), or one css-select cannot parse. Checked when the rules load
 * (families.ts), so a bad rule is config-invalid naming it, not a failure of every document.
 */
export function selectorProblem(rules: HtmlRules): [field: string, item: number | null, problem: string] | null {
  for (const [field, value] of Object.entries(rules)) {
    if (!field.endsWith('Selectors') || !Array.isArray(value)) continue;
    if (value.length > MAX_SELECTORS_PER_LIST) return [field, null, `holds ${value.length} selectors; at most ${MAX_SELECTORS_PER_LIST}`];
    for (const [item, selector] of (value as unknown[]).entries()) {
      if (typeof selector !== 'string') return [field, item, 'is not a string'];
      if (selector.length > MAX_SELECTOR_LENGTH)
        return [field, item, `is ${selector.length} characters long; at most ${MAX_SELECTOR_LENGTH}`];
      let depth = 0;
      let deepest = 0;
      for (const char of selector) {
        if (char === '(' || char === '[') deepest = Math.max(deepest, ++depth);
        else if (char === ')' || char === ']') depth -= 1;
      }
      if (deepest > MAX_SELECTOR_NESTING) return [field, item, `nests ${deepest} levels deep; at most ${MAX_SELECTOR_NESTING}`];
      try {
        compileSelector(selector);
      } catch (error) {
        return [field, item, `is not a CSS selector css-select can use (${(error as Error).message})`];
      }
    }
  }
  return null;
}

/**
 * A workspace family's selector lists, checked as they load (selectorProblem): a selector that does
 * not parse, nests too deep or a list past its bound is config-invalid naming the file and the rule,
 * rather than an internal-error on every document the family extracts. Its own module, imported only
 * by a workspace with families of its own, so no other command loads css-select on the main thread.
 */
export function checkFamilySelectors(rules: FamilyRules, shown: string): void {
  const problem = rules.html === undefined ? null : selectorProblem(rules.html);
  if (problem === null) return;
  const [field, item, why] = problem;
  const named = `html.${field}${item === null ? '' : `, item ${item}`}`;
  throw new EpistemeError('config-invalid', `Extraction rules file ${shown}: ${named} ${why}.`, {
    hint: 'Each entry of a *Selectors list is one CSS selector, as the built-in rules/*.json use them.',
    details: { file: shown, field: `html.${field}`, ...(item === null ? {} : { item }) },
  });
}
