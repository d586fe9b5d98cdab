import { type Element, isTag } from 'domhandler';
import { textContent } from 'domutils';
import { normalizeSpace } from '../text-sink.js';
import { boundedCopy } from '../input-bounds.js';
import { groupedReferenceLists, includedReference } from './rfc-references.js';

/**
 * What an RFC shows for `<xref>`: xml2rfc's prepared `derivedContent` when present, else the label the
 * renderers compute from the target ("Section 4.2", "Appendix B", "Figure 1", "[RFC9110]"), so the XML
 * reads as the HTML and text renderings do, never as a bare "[anchor]".
 */

interface Target {
  kind: 'section' | 'appendix' | 'figure' | 'table' | 'reference' | 'other';
  /** Section number, appendix letter path, figure or table number; null when unnumbered. */
  number: string | null;
  /** Heading or caption (format="title"). */
  title: string;
  /** Reference label shown between brackets. */
  label?: string;
}

function localName(el: Element): string {
  const colon = el.name.indexOf(':');
  return colon === -1 ? el.name : el.name.slice(colon + 1);
}

function kids(el: Element): Element[] {
  return el.children.filter((c): c is Element => isTag(c));
}

/** `numbered="false"` (v3) or `numbered="no"` (v2, RFC 7749): a section the renderers print without a number. */
export function isUnnumbered(section: Element): boolean {
  const numbered = section.attribs['numbered'];
  return numbered === 'false' || numbered === 'no';
}

function nameText(el: Element): string {
  const name = kids(el).find((c) => localName(c) === 'name');
  // A title an xref copies at each use: bounded as a link's text.
  return boundedCopy(normalizeSpace(name ? textContent(name) : (el.attribs['title'] ?? '')));
}

/** The number xml2rfc's `pn` states ("figure-3" gives "3"), or null. */
function pnNumber(el: Element, prefix: string): string | null {
  const pn = el.attribs['pn'];
  if (pn === undefined || !pn.startsWith(prefix)) return null;
  const rest = pn.slice(prefix.length);
  return /^\d+$/.test(rest) ? rest : null;
}

/** What shapes the rendering of an xref beyond its attributes. */
export interface XrefContext {
  /** Inside artwork or source code (rfc2629.xslt's default x:fmt there is ","). */
  inArtwork: boolean;
}

export class RfcTargets {
  private readonly byAnchor = new Map<string, Target>();
  private readonly numbers = new Map<Element, string>();
  /** Every element by its anchor (x:length-of measures one). */
  private readonly elements = new Map<string, Element>();
  /** The number of each anchored item of an ordered list ("3"), which format="counter" prints. */
  private readonly itemNumbers = new Map<string, string>();
  /** Reference anchor -> basename of the document its `<x:source>` names (rfc2629.xslt). */
  private readonly sources = new Map<string, string>();
  private figures = 0;
  private tables = 0;

  /**
   * Indexes every anchored element of `<rfc>` with the numbers the walker gives sections. `rfc2629`:
   * the document is written for rfc2629.xslt, whose defaults differ (rfc2629-extensions.ts).
   */
  constructor(
    rfc: Element,
    private readonly rfc2629 = false,
  ) {
    const references = rfc.children
      .filter(isTag)
      .flatMap((c) => [...this.descendants(c, 'reference'), ...this.descendants(c, 'referencegroup')]);
    for (const ref of references) {
      const anchor = ref.attribs['anchor'];
      if (anchor !== undefined) {
        const front = kids(ref).find((c) => localName(c) === 'front');
        const title = front ? nameText(kids(front).find((c) => localName(c) === 'title') ?? front) : '';
        this.byAnchor.set(anchor, { kind: 'reference', number: null, title, label: ref.attribs['derivedAnchor'] ?? anchor });
        const source = kids(ref).find((c) => localName(c) === 'source' && c.name.includes(':'));
        const basename = source?.attribs['basename'];
        if (basename !== undefined && basename !== '') this.sources.set(anchor, basename);
      }
    }
    // References the renderer includes from bibxml files (`<?rfc include?>`, `<xi:include>`): known by anchor only.
    for (const list of rfc.children.filter(isTag).flatMap((c) => this.descendants(c, 'references')))
      for (const node of list.children) {
        const anchor = includedReference(node);
        if (anchor !== null && !this.byAnchor.has(anchor))
          this.byAnchor.set(anchor, { kind: 'reference', number: null, title: '', label: anchor });
      }
    for (const d of rfc.children.filter(isTag).flatMap((c) => this.descendants(c, 'displayreference'))) {
      const known = this.byAnchor.get(d.attribs['target'] ?? '');
      if (known && d.attribs['to'] !== undefined) known.label = d.attribs['to'];
    }
    const middle = kids(rfc).find((c) => localName(c) === 'middle');
    const back = kids(rfc).find((c) => localName(c) === 'back');
    let counter = 0;
    if (middle) for (const s of kids(middle)) if (localName(s) === 'section') this.section(s, String(++counter), 'section');
    if (back) {
      let letter = 0;
      const grouped = groupedReferenceLists(back);
      const group = grouped.length > 0 ? String(++counter) : null;
      for (const s of kids(back)) {
        const name = localName(s);
        if (name === 'references') this.section(s, group === null ? String(++counter) : `${group}.${grouped.indexOf(s) + 1}`, 'section');
        else if (name === 'section') this.section(s, isUnnumbered(s) ? null : String.fromCharCode(65 + letter++), 'appendix');
      }
    }
  }

  private descendants(el: Element, name: string): Element[] {
    const out: Element[] = [];
    const visit = (e: Element): void => {
      if (localName(e) === name) out.push(e);
      for (const c of kids(e)) visit(c);
    };
    visit(el);
    return out;
  }

  /** Numbers the anchored items of an ordered list (v3 `<ol>`, v2 `<list style="numbers|format …">`). */
  private listItems(list: Element): void {
    const name = localName(list);
    const style = list.attribs['style'] ?? '';
    if (name !== 'ol' && !(name === 'list' && (style === 'numbers' || style.startsWith('format')))) return;
    const start = Number.parseInt(list.attribs['start'] ?? '1', 10);
    let i = Number.isFinite(start) ? start : 1;
    for (const item of kids(list)) {
      const n = localName(item);
      if (n !== 'li' && n !== 't') continue;
      const anchor = item.attribs['anchor'];
      if (anchor !== undefined && anchor !== '') this.itemNumbers.set(anchor, counterText(i, list.attribs['type'] ?? style));
      i++;
    }
  }

  private section(el: Element, number: string | null, kind: 'section' | 'appendix'): void {
    const target: Target = { kind, number, title: nameText(el) };
    this.remember(el, target);
    let sub = 0;
    for (const c of kids(el)) {
      const name = localName(c);
      if (name === 'section' || name === 'references') {
        const numbered = number !== null && !isUnnumbered(c);
        this.section(c, numbered ? `${number}.${++sub}` : null, kind);
      } else this.content(c, target);
    }
  }

  /** Figures and tables are numbered in document order; any other anchor names its section. */
  private content(el: Element, section: Target): void {
    const name = localName(el);
    if (name === 'figure') {
      const number = pnNumber(el, 'figure-') ?? String(++this.figures);
      this.numbers.set(el, number);
      this.remember(el, { kind: 'figure', number, title: nameText(el) });
    } else if (name === 'table' || name === 'texttable') {
      const number = pnNumber(el, 'table-') ?? String(++this.tables);
      this.numbers.set(el, number);
      this.remember(el, { kind: 'table', number, title: nameText(el) });
    } else if (name !== 'reference' && name !== 'referencegroup') {
      this.remember(el, section);
    }
    if (name === 'ol' || name === 'list') this.listItems(el);
    for (const c of kids(el)) this.content(c, section);
  }

  private remember(el: Element, target: Target): void {
    const anchor = el.attribs['anchor'];
    if (anchor !== undefined && anchor !== '' && !this.elements.has(anchor)) this.elements.set(anchor, el);
    for (const attr of ['anchor', 'pn']) {
      const id = el.attribs[attr];
      if (id !== undefined && id !== '' && !this.byAnchor.has(id)) this.byAnchor.set(id, target);
    }
  }

  /** The label a reference is cited by ("RFC9110", or its displayreference). */
  referenceLabel(anchor: string): string {
    return this.byAnchor.get(anchor)?.label ?? anchor;
  }

  /** The element an anchor names (x:length-of's target), if any. */
  element(anchor: string): Element | undefined {
    return this.elements.get(anchor);
  }

  /** The rendering of the document a reference's `<x:source>` names ("rfc9111.html"), or null. */
  sourceDocument(anchor: string): string | null {
    const basename = this.sources.get(anchor);
    return basename === undefined ? null : `${basename}.html`;
  }

  /**
   * The link rfc2629.xslt makes for `<xref x:rel="#anchor">` into the document its reference's
   * `<x:source>` names ("rfc9112.html#request.smuggling"), or null.
   */
  externalLink(xref: Element): string | null {
    const rel = xref.attribs['x:rel'];
    const document = this.sourceDocument(xref.attribs['target'] ?? '');
    if (rel === undefined || rel === '' || document === null) return null;
    return `${document}${rel.startsWith('#') ? rel : `#${rel}`}`;
  }

  /**
   * rfc2629.xslt prints an `<xref>` with content that points at a section as "content (Section N)"
   * unless its format says otherwise; "" when that does not apply.
   */
  sectionSuffix(xref: Element): string {
    if (!this.rfc2629) return '';
    const format = xref.attribs['format'] ?? 'default';
    if (format !== 'default') return '';
    const target = this.byAnchor.get(xref.attribs['target'] ?? '');
    if (target === undefined || (target.kind !== 'section' && target.kind !== 'appendix') || target.number === null) return '';
    return ` (${target.kind === 'appendix' ? 'Appendix' : 'Section'} ${target.number})`;
  }

  /** The text an `<xref>` without content shows. */
  render(xref: Element, context: XrefContext = { inArtwork: false }): string {
    const targetId = xref.attribs['target'] ?? '';
    const target = this.byAnchor.get(targetId);
    const format = xref.attribs['format'] ?? 'default';
    const derived = xref.attribs['derivedContent'];
    // xml2rfc v3 `section`/`sectionFormat`, or the rfc2629.xslt extension `x:sec`/`x:fmt`.
    const section = xref.attribs['section'] ?? xref.attribs['x:sec'];
    if (target?.kind === 'reference' || (target === undefined && section !== undefined)) {
      const label = `[${derived !== undefined && derived !== '' ? derived : (target?.label ?? targetId)}]`;
      // x:rel into a document named by x:source: its section number is only in that document.
      if (section === undefined) return format === 'title' && target ? target.title : label;
      const where = `${/^[A-Z]/.test(section) ? 'Appendix' : 'Section'} ${section}`;
      const X_FMT = new Map([
        [',', 'comma'],
        ['()', 'parens'],
        ['of', 'of'],
        ['number', 'bare'],
        ['sec', 'section'],
        ['none', 'none'],
      ]);
      const fallback = this.rfc2629 && context.inArtwork ? 'comma' : 'of';
      const sectionFormat = xref.attribs['sectionFormat'] ?? X_FMT.get(xref.attribs['x:fmt'] ?? '') ?? fallback;
      switch (sectionFormat) {
        case 'section':
          return where;
        case 'none':
          return '';
        case 'comma':
          return `${label}, ${where}`;
        case 'parens':
          return `${label} (${where})`;
        case 'bare':
          return section;
        default:
          return `${where} of ${label}`;
      }
    }
    if (derived !== undefined && derived !== '') return derived;
    if (target === undefined) return targetId;
    if (format === 'title') return target.title;
    if (format === 'counter' || format === 'none') return this.itemNumbers.get(targetId) ?? target.number ?? target.title;
    if (target.number === null) return target.title;
    switch (target.kind) {
      case 'appendix':
        return `Appendix ${target.number}`;
      case 'figure':
        return `Figure ${target.number}`;
      case 'table':
        return `Table ${target.number}`;
      case 'section':
        return `Section ${target.number}`;
      default:
        return target.title;
    }
  }

  /** "Figure 3: QUIC Layers" for a figure or table with a name; "" without one. */
  captionOf(el: Element): string {
    const title = nameText(el);
    if (title === '') return '';
    const number = this.numbers.get(el);
    return number === undefined ? title : `${localName(el) === 'figure' ? 'Figure' : 'Table'} ${number}: ${title}`;
  }
}

/**
 * A list item's number as its list's `type` (v3: "1", "a", "A", "i", "I", or a format with %d, %c, %C,
 * %i, %I) or v2 `style="format %d."` counts it; the counter alone, without the format's other text.
 */
function counterText(n: number, type: string): string {
  const directive = /%([dcCiI])/.exec(type)?.[1] ?? (/^[aAiI1]$/.test(type) ? type : 'd');
  switch (directive) {
    case 'a':
    case 'c':
      return letters(n);
    case 'A':
    case 'C':
      return letters(n).toUpperCase();
    case 'i':
      return roman(n);
    case 'I':
      return roman(n).toUpperCase();
    default:
      return String(n);
  }
}

function letters(n: number): string {
  let out = '';
  for (let k = n; k > 0; k = Math.floor((k - 1) / 26)) out = String.fromCharCode(97 + ((k - 1) % 26)) + out;
  return out;
}

function roman(n: number): string {
  const table: [number, string][] = [
    [1000, 'm'],
    [900, 'cm'],
    [500, 'd'],
    [400, 'cd'],
    [100, 'c'],
    [90, 'xc'],
    [50, 'l'],
    [40, 'xl'],
    [10, 'x'],
    [9, 'ix'],
    [5, 'v'],
    [4, 'iv'],
    [1, 'i'],
  ];
  let out = '';
  let k = n;
  for (const [value, digits] of table)
    while (k >= value) {
      out += digits;
      k -= value;
    }
  return out;
}
