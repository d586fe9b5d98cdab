import { type AnyNode, type Element, isTag, isText } from 'domhandler';

/**
 * ReSpec source documents: a W3C editor's draft as its authors write it, which ReSpec renders in the
 * reader's browser (a snapshot of https://w3c.github.io/<spec>/ is this source). ReSpec gives the
 * first heading of every `<section>` that is not `.introductory` the level of its section nesting
 * (its core/fix-headers module: h2 for a top-level section, h3 inside it, at most h6), so authors
 * write any heading tag, often h2 throughout. Read by the tags, such a document's outline is flat or
 * nests a section under its preceding sibling; read as ReSpec reads it, it is the outline readers see.
 */

/** Whether the document loads ReSpec: a script in its head whose src names respec, or its respecConfig. */
export function isRespecSource(document: AnyNode): boolean {
  const head = findHead(document, 0);
  if (head === null) return false;
  for (const child of head.children) {
    if (!isTag(child) || child.name !== 'script') continue;
    if (/respec/i.test(child.attribs['src'] ?? '')) return true;
    for (const text of child.children) if (isText(text) && text.data.includes('respecConfig')) return true;
  }
  return false;
}

/** The head element: a child of html (or of the root, for a document without html). */
function findHead(node: AnyNode, depth: number): Element | null {
  if (!('children' in node) || depth > 2) return null;
  for (const child of node.children) {
    if (!isTag(child)) continue;
    if (child.name === 'head') return child;
    if (child.name === 'html') return findHead(child, depth + 1);
  }
  return null;
}

/**
 * The level ReSpec gives `heading` when it is the first heading of its nearest `<section>` that is
 * not `.introductory`: one more than the sections around it, at most 6. Null for any other heading,
 * which keeps its tag's level.
 */
export function respecHeadingLevel(heading: Element): number | null {
  let section: Element | null = null;
  let sections = 0;
  for (let p = heading.parent; p !== null && isTag(p); p = p.parent) {
    if (p.name !== 'section') continue;
    section ??= p;
    sections++;
  }
  if (section === null || /(?:^|\s)introductory(?:\s|$)/.test(section.attribs['class'] ?? '')) return null;
  return firstHeading(section) === heading ? Math.min(sections + 1, 6) : null;
}

const HEADINGS = new Set(['h1', 'h2', 'h3', 'h4', 'h5', 'h6']);

/** The first h1-h6 inside `el`, in document order (querySelector's order). */
function firstHeading(el: Element): Element | null {
  for (const child of el.children) {
    if (!isTag(child)) continue;
    if (HEADINGS.has(child.name)) return child;
    const inner = firstHeading(child);
    if (inner !== null) return inner;
  }
  return null;
}

/**
 * The heading ReSpec writes into a section the author leaves without one: the abstract, the status
 * section (`sotd`) and the conformance section (unless `.override`), each a top-level section of the
 * rendered document. Null for any other section, or one with a heading of its own.
 */
export function respecSectionHeading(section: Element): string | null {
  const heading = RESPEC_HEADINGS.get(section.attribs['id'] ?? '');
  if (heading === undefined) return null;
  if (section.attribs['id'] === 'conformance' && /(?:^|\s)override(?:\s|$)/.test(section.attribs['class'] ?? '')) return null;
  const first = section.children.find(isTag);
  return first !== undefined && HEADINGS.has(first.name) ? null : heading;
}

const RESPEC_HEADINGS: ReadonlyMap<string, string> = new Map([
  ['abstract', 'Abstract'],
  ['sotd', 'Status of This Document'],
  ['conformance', 'Conformance'],
]);
