import { type AnyNode, type Element, isTag } from 'domhandler';
import { compile } from 'css-select';
import { parse, type Selector, SelectorType } from 'css-what';

/**
 * Compiles a family's selector (or list) with css-select, its `:has(...)` answered in linear time.
 *
 * css-select answers `:has(> x)` by searching the element's whole subtree (only children can match,
 * every descendant is tested), and `:has(x)` by searching the subtree up to its first match: each
 * element nested in another that matches pays for the subtree again. The generic family prunes
 * `a:has(> .viewcode-link)`, so each `<a>` in a table cell read everything below it: a hundred links
 * nested in table cells over 1 MB of text took 2.5 s against 0.15 s side by side; `div.status:has(>
 * p.support)` (WHATWG), `div.manual-text:not(:has(.Nd))` (mandoc) the same with divs. Here:
 * - `:has(> a > b)` (child combinators only) tests the children, and their children for `> b`: no
 *   deeper than the selector reaches;
 * - `:has(x)` (no combinator) is remembered per element, whether any descendant matches: each subtree
 *   is searched once, whatever nests above it.
 * Other `:has` arguments (`+`, `~`, descendant combinators, `:scope`) keep css-select's own search.
 * Same answers as css-select's: `<template>` contents are not searched below its children (HTML mode).
 */
export function compileSelector(selector: string): (el: Element) => boolean {
  return compileTokens(parse(selector));
}

type Matcher = (el: Element) => boolean;
type Pseudo = (el: Element, data?: string | null) => boolean;

function compileTokens(tokens: Selector[][]): Matcher {
  const pseudos: Record<string, Pseudo> = {};
  const rewritten = tokens.map((alternative) => rewrite(alternative, pseudos));
  const query = compile<AnyNode, Element>(rewritten, { pseudos });
  return (el) => query(el);
}

/** The selector with each `:has(...)` this module answers replaced by a pseudo-class of its own (in `pseudos`). */
function rewrite(alternative: Selector[], pseudos: Record<string, Pseudo>): Selector[] {
  return alternative.map((token): Selector => {
    if (token.type !== SelectorType.Pseudo || !Array.isArray(token.data)) return token;
    const data = token.data;
    if (token.name === 'has') {
      const matcher = hasMatcher(data);
      if (matcher !== null) {
        const name = `episteme-has-${Object.keys(pseudos).length}`;
        // css-select passes the argument; two parameters tell it the pseudo-class takes one.
        pseudos[name] = (el, _data) => matcher(el);
        return { type: SelectorType.Pseudo, name, data: name };
      }
    }
    return { ...token, data: data.map((inner) => rewrite(inner, pseudos)) };
  });
}

/** Whether the element has what `:has(alternatives)` asks, or null when one alternative is beyond this module. */
function hasMatcher(alternatives: Selector[][]): Matcher | null {
  const matchers: Matcher[] = [];
  for (const alternative of alternatives) {
    if (alternative.length === 0 || alternative.some(usesScope)) return null;
    const traversals = alternative.filter(isTraversal);
    if (traversals.length === 0) matchers.push(descendantMatcher(compileTokens([alternative])));
    else if (alternative[0]!.type === SelectorType.Child && traversals.every((t) => t.type === SelectorType.Child)) {
      const compounds: Selector[][] = [];
      for (const token of alternative) {
        if (token.type === SelectorType.Child) compounds.push([]);
        else compounds[compounds.length - 1]!.push(token);
      }
      if (compounds.some((compound) => compound.length === 0)) return null;
      matchers.push(childChainMatcher(compounds.map((compound) => compileTokens([compound]))));
    } else return null;
  }
  return matchers.length === 1 ? matchers[0]! : (el) => matchers.some((m) => m(el));
}

/** `:has(x)`: some element below matches, remembered per element so nested subjects share the search. */
function descendantMatcher(matches: Matcher): Matcher {
  const below = new WeakMap<Element, boolean>();
  const holds = (el: Element): boolean => {
    let known = below.get(el);
    if (known === undefined) {
      known = false;
      for (const c of el.children)
        if (isTag(c) && (matches(c) || (c.name !== 'template' && holds(c)))) {
          known = true;
          break;
        }
      below.set(el, known);
    }
    return known;
  };
  return holds;
}

/** `:has(> a > b)`: a child matching the first compound, with a child matching the next, and so on. */
function childChainMatcher(compounds: Matcher[]): Matcher {
  const from = (el: Element, i: number): boolean => {
    for (const c of el.children)
      if (isTag(c) && compounds[i]!(c) && (i === compounds.length - 1 || (c.name !== 'template' && from(c, i + 1)))) return true;
    return false;
  };
  return (el) => from(el, 0);
}

function isTraversal(token: Selector): boolean {
  return (
    token.type === SelectorType.Child ||
    token.type === SelectorType.Descendant ||
    token.type === SelectorType.Adjacent ||
    token.type === SelectorType.Sibling ||
    token.type === SelectorType.Parent ||
    token.type === SelectorType.ColumnCombinator
  );
}

/** Whether a token names `:scope` (or nests a selector that does): its answer depends on the `:has` subject. */
function usesScope(token: Selector): boolean {
  if (token.type !== SelectorType.Pseudo) return false;
  if (token.name === 'scope') return true;
  return Array.isArray(token.data) && token.data.some((inner) => inner.some(usesScope));
}
