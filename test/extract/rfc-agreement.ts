import type { Block, EvidenceDocument, Section } from '../../src/document/types.js';

/**
 * Block-by-block agreement of two renderings of one RFC (kind, normativity, text modulo whitespace).
 * Sections pair by an id both renderings name (the XML's derived aliases included); a section only
 * one rendering has may only be boilerplate the renderer generates.
 */

/** Sections a renderer writes from nothing in the XML (unprepared XML lacks them). */
const GENERATED = new Set(['status of this memo', 'copyright notice', 'table of contents', 'index']);

function idsOf(s: Section): string[] {
  return [s.fragment, ...(s.alternateIds ?? []), ...(s.derivedIds ?? [])].filter((x): x is string => x !== null);
}

/** Whitespace never counts; nor do typographic quotes, which one renderer prints for another's straight ones. */
const squash = (text: string): string =>
  text
    .replace(/\s+/g, '')
    .replace(/[\u201c\u201d]/g, '"')
    .replace(/[\u2018\u2019]/g, "'");

interface Link {
  text: string;
  href: string;
}
interface Entry {
  terms: string[];
  definitions: string[];
}

/** The limit an XML declares when content comes from documents its `<x:source>` elements name. */
export const EXTERNAL_SOURCES_LIMIT = 'rfc-external-sources-not-read';

/**
 * The HTML's text without what the renderer drew from other documents, which the XML does not hold
 * (it declares EXTERNAL_SOURCES_LIMIT): the section number of a cross-reference into another document
 * ("Section 11.2 of [HTTP/1.1]": the XML names the section by anchor only; both blocks link into that
 * same document, which is what licenses the removal), and the citation of a reference the XML gives no
 * <front> (its term stays). Squashed text in, squashed text out.
 */
function withoutExternalContent(text: string, a: Block, b: Block): string {
  // The document each XML link points into (the anchor inside it may be an alias the renderer resolved).
  const documentOf = (href: string): string => href.split('#')[0] ?? href;
  const xmlDocuments = new Set(((b['links'] as Link[] | undefined) ?? []).map((l) => documentOf(l.href)));
  let out = text;
  for (const link of (a['links'] as Link[] | undefined) ?? []) {
    if (!xmlDocuments.has(documentOf(link.href)) || !/^(?:Section|Appendix) [\w.]+$/.test(link.text)) continue;
    const where = squash(link.text);
    // The formats rfc2629.xslt prints: "of" (default), "," (artwork default), "()", and the bare "Section N".
    for (const form of [`${where}of`, `,${where}`, `(${where})`, where]) {
      const at = out.indexOf(form);
      if (at === -1) continue;
      out = out.slice(0, at) + out.slice(at + form.length);
      break;
    }
  }
  const xmlEntries = (b['entries'] as Entry[] | undefined) ?? [];
  const citationless = new Set(xmlEntries.filter((e) => e.definitions.length === 0).flatMap((e) => e.terms.map(squash)));
  for (const e of (a['entries'] as Entry[] | undefined) ?? []) {
    if (!e.terms.some((t) => citationless.has(squash(t)))) continue;
    const entry = squash([...e.terms, ...e.definitions].join(''));
    out = out.replace(entry, squash(e.terms.join('')));
  }
  return out;
}

export interface Agreement {
  paired: number;
  total: number;
  problems: string[];
  unpairedSections: string[];
}

export function compare(html: EvidenceDocument, xml: EvidenceDocument): Agreement {
  const xmlById = new Map<string, Section>();
  for (const s of xml.sections) for (const id of idsOf(s)) if (!xmlById.has(id)) xmlById.set(id, s);
  // Sections without an id pair by number and heading, else by a heading only one section has.
  const xmlByHeading = new Map<string, Section | null>();
  for (const s of xml.sections) {
    const numbered = `${s.number ?? ''} ${s.heading}`;
    xmlByHeading.set(numbered, xmlByHeading.has(numbered) ? null : s);
    xmlByHeading.set(s.heading, xmlByHeading.has(s.heading) ? null : s);
  }
  const blocksOf = (d: EvidenceDocument, sectionId: string | null): Block[] => d.blocks.filter((b) => b.sectionId === sectionId);
  const problems: string[] = [];
  const unpairedSections: string[] = [];
  let paired = 0;
  let total = 0;
  const usedXml = new Set<string>();
  for (const h of html.sections) {
    const x =
      idsOf(h)
        .map((id) => xmlById.get(id))
        .find((s) => s !== undefined) ??
      xmlByHeading.get(`${h.number ?? ''} ${h.heading}`) ??
      xmlByHeading.get(h.heading) ??
      undefined;
    const hb = blocksOf(html, h.id);
    if (!x) {
      // A heading with no blocks (the document title, a table of contents pruned to nothing) pairs nothing.
      if (hb.length > 0 && !GENERATED.has(h.heading.toLowerCase()))
        unpairedSections.push(`html ${h.id} "${h.heading}" (${hb.length} blocks)`);
      if (!GENERATED.has(h.heading.toLowerCase())) total += hb.length;
      continue;
    }
    usedXml.add(x.id);
    const xb = blocksOf(xml, x.id);
    total += Math.max(hb.length, xb.length);
    for (let i = 0; i < Math.max(hb.length, xb.length); i++) {
      const a = hb[i];
      const b = xb[i];
      if (!a || !b) {
        problems.push(`${h.id}: block ${i + 1} only in ${a ? 'HTML' : 'XML'}: ${(a ?? b)!.text.slice(0, 80)}`);
        continue;
      }
      const why: string[] = [];
      if (a.kind !== b.kind) why.push(`kind ${a.kind} vs ${b.kind}`);
      if (a.normativity !== b.normativity) why.push(`normativity ${a.normativity} vs ${b.normativity}`);
      const sb = squash(b.text);
      const sa = xml.limits.includes(EXTERNAL_SOURCES_LIMIT) ? withoutExternalContent(squash(a.text), a, b) : squash(a.text);
      if (sa !== sb) {
        let k = 0;
        while (k < sa.length && sa[k] === sb[k]) k++;
        why.push(`text differs at ${k}: HTML «${sa.slice(Math.max(0, k - 30), k + 40)}» XML «${sb.slice(Math.max(0, k - 30), k + 40)}»`);
      }
      if (why.length === 0) paired++;
      else problems.push(`${h.id} block ${i + 1}: ${why.join('; ')}`);
    }
  }
  for (const x of xml.sections) {
    if (usedXml.has(x.id)) continue;
    const xb = blocksOf(xml, x.id);
    if (xb.length === 0) continue;
    total += xb.length;
    unpairedSections.push(`xml ${x.id} "${x.heading}" (${xb.length} blocks)`);
  }
  return { paired, total, problems, unpairedSections };
}
