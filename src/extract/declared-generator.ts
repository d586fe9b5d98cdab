import { type AnyNode, type Element, isTag, isText } from 'domhandler';
import type { GeneratorClaim } from './families.js';
import { isHtmlizedRfc } from './html/htmlized-rfc.js';
import { isRespecSource } from './html/respec-source.js';
import { frontMatter, MAX_FRONT_MATTER_LINES } from './markdown/front-matter.js';
import { looksLikeRfcText } from './text/rfc-text.js';

/**
 * What a document's bytes say about the tool that made it, for a document whose URL names no family
 * (families.ts familyForGenerators picks the family that lists the tool). First what it declares, a
 * `<meta name="generator">`; then what a tool's own markup shows where it declares nothing:
 *
 * - ReSpec: a script that loads ReSpec or a `respecConfig` (a source, rendered in the reader's browser),
 *   or the ids ReSpec 3 wrote on the page it rendered (`respecDocument`, `respecHeader`);
 * - Bikeshed: the headings it writes, `class="heading settled"` (its test renders have no generator meta);
 * - ecmarkup: its script or style sheet (`ecmarkup.js`, `ecmarkup.css`) or its clause elements;
 * - xml2rfc: an RFC XML root (`<rfc>`, the vocabulary xml2rfc reads), the RFC plain-text layout xml2rfc
 *   prints (front page header, `[Page N]` feet), or an htmlized RFC's `<pre>` pages of that text;
 * - kramdown-rfc: Markdown whose YAML front matter names the draft (`docname:`), kramdown-rfc's own key.
 * - mmark: Markdown whose TOML front matter (`%%%`) names its series (`[seriesInfo]`).
 * - pod2html (Pod::Html, Perl's documentation as perldoc renders it): its `<link rev="made">` with the
 *   table of contents it opens the body with, `<ul id="index">` (it writes no generator meta).
 *
 * - Haddock (Haskell's API documentation): its page header, `<div id="package-header">`, with the footer's link
 *   to Haddock's home (`.../haddock/`).
 * - erl_docgen (Erlang/OTP's documentation): the `xmlns:erl="http://erlang.org"` its XSLT leaves on `<html>`.
 * - Node.js's doc tool (tools/doc, the API pages of nodejs.org): its `<meta name="nodejs.org:node-version">`.
 * - RDoc (Ruby's API documentation, docs.ruby-lang.org): its Darkfish template's script (`darkfish.js`) or
 *   style sheet (`rdoc.css`); it writes no generator meta.
 *
 * Each claim carries the document type the document declares, when it declares one: an RFC number
 * (`rfc`) or an Internet-Draft name (`internet-draft`), which tells the rfc and ietf-draft families
 * apart, or a subtitle (Bikeshed's `#subtitle`) that starts "Living Standard" (`living-standard`: the
 * whatwg family, where any other Bikeshed document is read with the w3c one).
 */

/** The claims of an HTML document, in the order they count. */
export function htmlGeneratorClaims(document: AnyNode, source: string): GeneratorClaim[] {
  const seen = scan(document);
  const documentType =
    seen.documentType ??
    (seen.subtitle !== null && /^living standard\b/i.test(seen.subtitle) ? 'living-standard' : ietfDocumentTypeOfMarkup(source));
  const claims: GeneratorClaim[] = seen.generators.map((generator) => ({
    generator,
    evidence: `<meta name="generator" content="${shorten(generator)}">`,
    documentType,
  }));
  const claim = (generator: string, evidence: string): void => {
    claims.push({ generator, evidence, documentType });
  };
  if (isRespecSource(document)) claim('ReSpec', 'a script that loads ReSpec');
  if (seen.respecId !== null) claim('ReSpec', `ReSpec's id="${seen.respecId}"`);
  if (seen.settledHeading) claim('Bikeshed', 'Bikeshed\'s headings, class="heading settled"');
  if (seen.ecmarkup !== null) claim('ecmarkup', seen.ecmarkup);
  if (isHtmlizedRfc(document)) claim('xml2rfc', "an htmlized RFC's <pre> pages of the RFC text layout");
  if (seen.madeLink && seen.podIndex) claim('pod2html', 'pod2html\'s <link rev="made"> and <ul id="index">');
  if (seen.haddockHeader && seen.haddockLink) claim('Haddock', 'Haddock\'s <div id="package-header"> and its link to Haddock');
  if (seen.erlNamespace) claim('erl_docgen', 'erl_docgen\'s xmlns:erl="http://erlang.org"');
  if (seen.nodeVersion) claim('Node.js doc tool', '<meta name="nodejs.org:node-version">');
  if (seen.rdocAsset !== null) claim('RDoc', `RDoc's ${seen.rdocAsset}`);
  return claims;
}

/** The claims of an XML document: an RFC XML root, with the number or draft name it gives. */
export function xmlGeneratorClaims(text: string): GeneratorClaim[] {
  const root = xmlRootStartTag(text);
  if (root === null || localName(root.name) !== 'rfc') return [];
  const number = root.attributes.get('number')?.trim() ?? '';
  const docName = root.attributes.get('docName')?.trim() ?? '';
  const documentType = number !== '' ? 'rfc' : docName !== '' ? 'internet-draft' : null;
  const shown = number !== '' ? ` number="${shorten(number)}"` : docName !== '' ? ` docName="${shorten(docName)}"` : '';
  return [{ generator: 'xml2rfc', evidence: `the RFC XML root <${shorten(root.name)}${shown}>`, documentType }];
}

/**
 * The claims of Markdown: an IETF source, whose front matter (front-matter.ts, read no further than its
 * bound) names the document: kramdown-rfc's YAML `docname:` ("draft-..." is a draft) or RFC `number:`,
 * or mmark's TOML `[seriesInfo]` (`name = "Internet-Draft"` or `"RFC"`, with its `value`). Jekyll's or
 * Hugo's front matter has neither.
 */
export function markdownGeneratorClaims(text: string): GeneratorClaim[] {
  const front = frontMatter(text.split(/\r\n|\r|\n/, MAX_FRONT_MATTER_LINES));
  if (front === null) return [];
  if (front.fence === '%%%') {
    const series = front.fields.get('seriesInfo.name') ?? '';
    const value = front.fields.get('seriesInfo.value') ?? '';
    const documentType = /^internet-draft$/i.test(series) ? 'internet-draft' : /^rfc$/i.test(series) ? 'rfc' : null;
    if (documentType === null || value === '') return [];
    return [{ generator: 'mmark', evidence: `mmark front matter, seriesInfo: ${shorten(series)} ${shorten(value)}`, documentType }];
  }
  const docName = front.fields.get('docname') ?? '';
  const number = /^\d+$/.test(front.fields.get('number') ?? '') ? front.fields.get('number')! : '';
  if (front.fence !== '---' || (docName === '' && number === '')) return [];
  const documentType = number !== '' ? 'rfc' : /^draft-/i.test(docName) ? 'internet-draft' : null;
  const shown = number !== '' ? `number: ${shorten(number)}` : `docname: ${shorten(docName)}`;
  return [{ generator: 'kramdown-rfc', evidence: `kramdown-rfc front matter, ${shown}`, documentType }];
}

/** The claims of plain text: the RFC / Internet-Draft text layout, with the series its first page names. */
export function textGeneratorClaims(text: string): GeneratorClaim[] {
  if (!looksLikeRfcText(text)) return [];
  return [{ generator: 'xml2rfc', evidence: 'the RFC plain-text layout', documentType: ietfDocumentTypeOfText(text) }];
}

/**
 * The series a text's first page names: "Request for Comments: 6635" or a running header "RFC 6635"
 * is an RFC; an "Internet-Draft" header line a draft.
 */
export function ietfDocumentTypeOfText(text: string): string | null {
  const head = text.slice(0, 4000);
  if (/^Request for Comments:\s*\d/m.test(head)) return 'rfc';
  if (/^(?:Internet-Draft|INTERNET[- ]DRAFT)(?:\s|$)/m.test(head)) return 'internet-draft';
  if (/^RFC \d+ {2}/m.test(text.slice(0, 20000))) return 'rfc';
  return null;
}

/**
 * An HTML rendering's series when its metas do not say: its front matter's "Request for Comments:" or a
 * title "RFC 9110 - ..." (rfc2629.xslt's), else "Internet-Draft".
 */
function ietfDocumentTypeOfMarkup(source: string): string | null {
  const head = source.slice(0, 256 * 1024);
  if (/Request for Comments:(?:\s|&nbsp;|<[^<>]{0,200}>){0,8}\d/.test(head) || /<title>\s*RFC ?\d/i.test(head)) return 'rfc';
  if (/Internet-Draft/.test(head)) return 'internet-draft';
  return null;
}

interface Seen {
  generators: string[];
  documentType: string | null;
  /** The text of the first element with id="subtitle" (Bikeshed's status line), cut at 64 code units. */
  subtitle: string | null;
  respecId: string | null;
  settledHeading: boolean;
  ecmarkup: string | null;
  /** A `<link rev="made">` (pod2html's, the author's address) and a `<ul id="index">` (its contents). */
  madeLink: boolean;
  podIndex: boolean;
  /** Haddock's `<div id="package-header">` and a link to Haddock's home page (its footer's). */
  haddockHeader: boolean;
  haddockLink: boolean;
  /** erl_docgen's namespace declaration on `<html>`. */
  erlNamespace: boolean;
  /** Node.js's `<meta name="nodejs.org:node-version">`. */
  nodeVersion: boolean;
  /** RDoc Darkfish's script or style sheet (`darkfish.js`, `rdoc.css`), the file named. */
  rdocAsset: string | null;
}

const HEADINGS = new Set(['h1', 'h2', 'h3', 'h4', 'h5', 'h6']);
const ECMARKUP_CLAUSES = new Set(['emu-clause', 'emu-intro', 'emu-annex']);
const RESPEC_IDS = new Set(['respecDocument', 'respecHeader']);

/** One walk of the tree (explicit stack: a deep tree cannot overflow it) for every marker above. */
function scan(document: AnyNode): Seen {
  const seen: Seen = {
    generators: [],
    documentType: null,
    subtitle: null,
    respecId: null,
    settledHeading: false,
    ecmarkup: null,
    madeLink: false,
    podIndex: false,
    haddockHeader: false,
    haddockLink: false,
    erlNamespace: false,
    nodeVersion: false,
    rdocAsset: null,
  };
  const stack: AnyNode[] = [document];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (!('children' in node)) continue;
    if (isTag(node)) visit(node, seen);
    for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]!);
  }
  return seen;
}

function visit(el: Element, seen: Seen): void {
  const attribs = el.attribs;
  if (el.name === 'meta') {
    const name = (attribs['name'] ?? '').trim().toLowerCase();
    const content = (attribs['content'] ?? '').trim();
    if (content === '') return;
    if (name === 'generator') seen.generators.push(content);
    else if (name === 'nodejs.org:node-version') seen.nodeVersion = true;
    else if (name === 'rfc.number') seen.documentType ??= 'rfc';
    else if (name === 'ietf.draft') seen.documentType ??= 'internet-draft';
    else if (name === 'dct.identifier') {
      const urn = content.toLowerCase();
      if (urn.startsWith('urn:ietf:rfc:')) seen.documentType ??= 'rfc';
      else if (urn.startsWith('urn:ietf:id:')) seen.documentType ??= 'internet-draft';
    }
    return;
  }
  const id = attribs['id'];
  if (id !== undefined && seen.respecId === null && RESPEC_IDS.has(id)) seen.respecId = id;
  if (el.name === 'link' && (attribs['rev'] ?? '').trim().toLowerCase() === 'made') seen.madeLink = true;
  if (el.name === 'ul' && id === 'index') seen.podIndex = true;
  if (el.name === 'div' && id === 'package-header') seen.haddockHeader = true;
  if (el.name === 'a' && /\/haddock\/?$/i.test((attribs['href'] ?? '').trim())) seen.haddockLink = true;
  if (el.name === 'html' && (attribs['xmlns:erl'] ?? '').trim() === 'http://erlang.org') seen.erlNamespace = true;
  if (id === 'subtitle' && seen.subtitle === null) seen.subtitle = leadingText(el, 64);
  if (!seen.settledHeading && HEADINGS.has(el.name)) {
    const classes = (attribs['class'] ?? '').split(/\s+/);
    if (classes.includes('heading') && classes.includes('settled')) seen.settledHeading = true;
  }
  if (seen.ecmarkup === null && ECMARKUP_CLAUSES.has(el.name)) seen.ecmarkup = `ecmarkup's <${el.name}> elements`;
  if (el.name === 'script' || el.name === 'link') {
    const url = attribs[el.name === 'script' ? 'src' : 'href'] ?? '';
    const file = url.split(/[?#]/)[0]!.split('/').pop()!.toLowerCase();
    if (seen.ecmarkup === null && (file === 'ecmarkup.js' || file === 'ecmarkup.css')) seen.ecmarkup = `ecmarkup's ${file}`;
    if (seen.rdocAsset === null && (file === 'darkfish.js' || file === 'rdoc.css')) seen.rdocAsset = file;
  }
}

/** The first `max` code units of an element's text, spaces collapsed, read no further than that. */
function leadingText(el: Element, max: number): string {
  let text = '';
  const stack: AnyNode[] = [el];
  while (stack.length > 0 && text.length < max) {
    const node = stack.pop()!;
    if (isText(node)) text += node.data;
    else if ('children' in node) for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]!);
  }
  return text.replace(/\s+/g, ' ').trim().slice(0, max);
}

/** A value quoted in a diagnostic: spaces collapsed, control characters dropped, cut at 80 code units. */
function shorten(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it removes.
  const flat = text.replace(/\s+/g, ' ').replace(/[\u0000-\u001f\u007f-\u009f]/g, '');
  return flat.length <= 80 ? flat : `${flat.slice(0, 79)}…`;
}

function localName(name: string): string {
  const colon = name.indexOf(':');
  return colon === -1 ? name : name.slice(colon + 1);
}

/**
 * The root element's start tag of an XML text: the first start tag after the prolog (BOM, XML
 * declaration, processing instructions, comments, a DOCTYPE with its internal subset, whose quoted
 * entity values may hold markup). One pass, no parser: null when the text has none.
 */
export function xmlRootStartTag(text: string): { name: string; attributes: Map<string, string> } | null {
  let i = 0;
  for (;;) {
    const lt = text.indexOf('<', i);
    if (lt === -1) return null;
    if (text.startsWith('<?', lt)) {
      const end = text.indexOf('?>', lt + 2);
      if (end === -1) return null;
      i = end + 2;
    } else if (text.startsWith('<!--', lt)) {
      const end = text.indexOf('-->', lt + 4);
      if (end === -1) return null;
      i = end + 3;
    } else if (text.startsWith('<!', lt)) {
      const end = declarationEnd(text, lt + 2);
      if (end === -1) return null;
      i = end;
    } else return startTag(text, lt + 1);
  }
}

/**
 * The offset after a `<!...>` declaration (a DOCTYPE) starting at `from`, its `[...]` subset and quoted
 * values skipped; -1 if it never ends.
 */
function declarationEnd(text: string, from: number): number {
  let depth = 0;
  let i = from;
  while (i < text.length) {
    const c = text[i]!;
    if (c === '"' || c === "'") {
      const end = text.indexOf(c, i + 1);
      if (end === -1) return -1;
      i = end + 1;
    } else if (depth > 0 && text.startsWith('<!--', i)) {
      const end = text.indexOf('-->', i + 4);
      if (end === -1) return -1;
      i = end + 3;
    } else if (depth > 0 && text.startsWith('<?', i)) {
      const end = text.indexOf('?>', i + 2);
      if (end === -1) return -1;
      i = end + 2;
    } else {
      if (c === '[') depth++;
      else if (c === ']') depth = Math.max(0, depth - 1);
      else if (c === '>' && depth === 0) return i + 1;
      i++;
    }
  }
  return -1;
}

const NAME = /[^\s/>=]+/y;
const ATTRIBUTE = /\s*([^\s/>=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+)))?/y;

function startTag(text: string, from: number): { name: string; attributes: Map<string, string> } | null {
  NAME.lastIndex = from;
  const name = NAME.exec(text);
  if (name === null) return null;
  const attributes = new Map<string, string>();
  let at = NAME.lastIndex;
  for (;;) {
    ATTRIBUTE.lastIndex = at;
    const attribute = ATTRIBUTE.exec(text);
    if (attribute === null) break;
    if (!attributes.has(attribute[1]!)) attributes.set(attribute[1]!, attribute[2] ?? attribute[3] ?? attribute[4] ?? '');
    at = ATTRIBUTE.lastIndex;
  }
  return { name: name[0], attributes };
}
