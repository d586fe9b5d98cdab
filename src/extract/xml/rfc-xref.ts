import { type Element, isTag } from 'domhandler';
import { textContent } from 'domutils';
import { normalizeSpace } from '../text-sink.js';

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

function nameText(el: Element): string {
  const name = kids(el).find((c) => localName(c) === 'name');
  return normalizeSpace(name ? textContent(name) : (el.attribs['title'] ?? ''));
}

/** The number xml2rfc's `pn` states ("figure-3" gives "3"), or null. */
function pnNumber(el: Element, prefix: string): string | null {
  const pn = el.attribs['pn'];
  if (pn === undefined || !pn.startsWith(prefix)) return null;
  const rest = pn.slice(prefix.length);
  return /^\d+$/.test(rest) ? rest : null;
}

export class RfcTargets {
  private readonly byAnchor = new Map<string, Target>();
  private readonly numbers = new Map<Element, string>();
  private figures = 0;
  private tables = 0;

  /** Indexes every anchored element of `<rfc>` with the numbers the walker gives sections. */
  constructor(rfc: Element) {
    const references = rfc.children
      .filter(isTag)
      .flatMap((c) => [...this.descendants(c, 'reference'), ...this.descendants(c, 'referencegroup')]);
    for (const ref of references) {
      const anchor = ref.attribs['anchor'];
      if (anchor !== undefined) {
        const front = kids(ref).find((c) => localName(c) === 'front');
        const title = front ? nameText(kids(front).find((c) => localName(c) === 'title') ?? front) : '';
        this.byAnchor.set(anchor, { kind: 'reference', number: null, title, label: ref.attribs['derivedAnchor'] ?? anchor });
      }
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
      for (const s of kids(back)) {
        const name = localName(s);
        if (name === 'references') this.section(s, String(++counter), 'section');
        else if (name === 'section')
          this.section(s, s.attribs['numbered'] === 'false' ? null : String.fromCharCode(65 + letter++), 'appendix');
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

  private section(el: Element, number: string | null, kind: 'section' | 'appendix'): void {
    const target: Target = { kind, number, title: nameText(el) };
    this.remember(el, target);
    let sub = 0;
    for (const c of kids(el)) {
      const name = localName(c);
      if (name === 'section' || name === 'references') {
        const numbered = number !== null && c.attribs['numbered'] !== 'false';
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
    for (const c of kids(el)) this.content(c, section);
  }

  private remember(el: Element, target: Target): void {
    for (const attr of ['anchor', 'pn']) {
      const id = el.attribs[attr];
      if (id !== undefined && id !== '' && !this.byAnchor.has(id)) this.byAnchor.set(id, target);
    }
  }

  /** The label a reference is cited by ("RFC9110", or its displayreference). */
  referenceLabel(anchor: string): string {
    return this.byAnchor.get(anchor)?.label ?? anchor;
  }

  /** The text an `<xref>` without content shows. */
  render(xref: Element): string {
    const targetId = xref.attribs['target'] ?? '';
    const target = this.byAnchor.get(targetId);
    const format = xref.attribs['format'] ?? 'default';
    const derived = xref.attribs['derivedContent'];
    // xml2rfc v3 `section`/`sectionFormat`, or the rfc2629.xslt extension `x:sec`/`x:fmt`.
    const section = xref.attribs['section'] ?? xref.attribs['x:sec'];
    if (target?.kind === 'reference' || (target === undefined && section !== undefined)) {
      const label = `[${derived !== undefined && derived !== '' ? derived : (target?.label ?? targetId)}]`;
      if (section === undefined) return format === 'title' && target ? target.title : label;
      const where = `${/^[A-Z]/.test(section) ? 'Appendix' : 'Section'} ${section}`;
      const X_FMT: Record<string, string> = { ',': 'comma', '()': 'parens', of: 'of', number: 'bare', sec: 'section', none: 'none' };
      const sectionFormat = xref.attribs['sectionFormat'] ?? X_FMT[xref.attribs['x:fmt'] ?? ''] ?? 'of';
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
    if (format === 'counter' || format === 'none') return target.number ?? target.title;
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
