import type { EvidenceDocument, SnapshotMeta, SourceSpec } from '../document/types.js';
import { canonicalJson } from '../store/canonical-json.js';
import { sha256Hex } from '../store/hash.js';
import { PRODUCER_NAME, PRODUCER_VERSION } from '../version.js';
import { DocumentBuilder } from './document-builder.js';
import { decodeBytes, type Decoded } from './decode.js';
import { declarationSyntax } from './encoding-sniffing.js';
import { binarySignature } from './signatures.js';
import { familyForGenerators, namesGenerator, type GeneratorClaim, type LoadedFamily } from './families.js';
import { htmlGeneratorClaims, markdownGeneratorClaims, textGeneratorClaims, xmlGeneratorClaims } from './declared-generator.js';
import { extractHtml, parseHtml } from './html/html-extractor.js';
import type { ParsedMarkup } from './markup-parser.js';
import { extractPlainText } from './text/text-extractor.js';
import { extractVimHelp, looksLikeVimHelp } from './text/vim-help.js';
import { extractManText, looksLikeManText } from './text/man-text.js';
import { extractRfcText, looksLikeRfcText } from './text/rfc-text.js';
import { extractXml } from './xml/xml-extractor.js';
import { extractMarkdown } from './markdown/markdown-extractor.js';
import { extractPdf } from './pdf/pdf-extractor.js';
import { compareCodeUnits } from '../store/canonical-json.js';

export { validateDocument } from './validate.js';
export { DEFAULT_EXTRACT_OPTIONS, EXTRACT_RULE_VERSION, chooseExtractor, extractionConfig, type ExtractOptions } from './config.js';
import { PDF_EXTRACTOR_VERSION } from '../rule-versions.js';
import {
  EXTRACT_RULE_VERSION,
  extractionConfig,
  familiesInEffect,
  fragmentOf,
  mediaType,
  normalizedOptions,
  withoutFragment,
  type ExtractOptions,
} from './config.js';

/** What a Markdown document no tool of its family declared is (extract rule 29). */
const PLAIN_MARKDOWN_DEFAULTS = { authority: 'informative', documentType: 'document' } as const;

/** Extraction options: integers, strings and booleans only (they enter the config hash). */
export interface ExtractInput {
  documentId: string;
  source: SourceSpec;
  snapshot: SnapshotMeta;
  body: Uint8Array;
  options: ExtractOptions;
  /** The workspace's own families (episteme.json "rules"), if any. */
  families?: LoadedFamily[];
}

/**
 * Pure extraction: the same input gives an identical document. Bad content yields a document with
 * error diagnostics (pdf-empty, pdf-encrypted, pdf-malformed, xml-malformed...); an unknown family
 * id throws EpistemeError('config-invalid'), and input past a fixed bound (input-bounds.ts) throws
 * EpistemeError('extract-bound-exceeded'). Time and memory are bounded by the stage pool.
 */
export async function extractDocument(input: ExtractInput): Promise<EvidenceDocument> {
  const { source, snapshot, body } = input;
  const options = normalizedOptions(input.options);
  const { family: urlFamily, extractor, byContent, byUrl } = familiesInEffect(source, snapshot, input.families);
  const config = extractionConfig(source, snapshot, options, input.families);
  const fragment = fragmentOf(source.url);
  const baseUrl = withoutFragment(source.url);

  // The bytes are read before the family is chosen: a document whose URL names no family takes the
  // family of the tool its bytes declare (declared-generator.ts), among those its key covers.
  // A charset the capture took from a markup document's own declaration is read from the bytes again,
  // by the same prescan (encoding-sniffing.ts): a snapshot recorded by an older, wrong reading decodes right.
  const declared = snapshot.charsetSource === 'meta' ? null : snapshot.charset;
  let decoded: Decoded | null = null;
  let parsed: ParsedMarkup | undefined;
  let claims: GeneratorClaim[] = [];
  switch (extractor) {
    case 'html': {
      // XHTML declares its encoding as XML does, never by <meta>.
      const syntax = declarationSyntax(mediaType(snapshot.contentType)) === 'xml' ? 'xml' : 'html';
      decoded = decodeBytes(body, declared, syntax);
      if (byContent.length > 0) {
        parsed = parseHtml(decoded.text);
        claims = htmlGeneratorClaims(parsed.document, decoded.text);
      }
      break;
    }
    case 'text':
      decoded = decodeBytes(body, snapshot.charset, null);
      if (byContent.length > 0) claims = textGeneratorClaims(decoded.text);
      break;
    case 'markdown':
      decoded = decodeBytes(body, snapshot.charset, null);
      // Read always (front matter only): whether a tool of its family made it decides its defaults below.
      claims = markdownGeneratorClaims(decoded.text);
      break;
    case 'xml':
      decoded = decodeBytes(body, declared, 'xml');
      if (byContent.length > 0) claims = xmlGeneratorClaims(decoded.text);
      break;
    case 'pdf':
      break;
  }
  // A family the URL gives yields only to a sibling of the document type the document declares.
  const chosen = familyForGenerators(claims, byContent, byUrl);
  const family = chosen?.family ?? urlFamily;
  // A family's defaults describe the documents it publishes. The shipped standards families do not
  // publish in plain Markdown: one on their hosts is an explainer, a README or notes beside a spec, read
  // as an informative document unless its content declares a tool the family reads (kramdown-rfc,
  // mmark). A workspace's own family is taken at its word.
  const familyTool = claims.some((claim) => (family.rules.match.generators ?? []).some((name) => namesGenerator(claim.generator, name)));
  const shipped = family.workspaceFile === undefined;
  const defaults = extractor === 'markdown' && shipped && !familyTool ? PLAIN_MARKDOWN_DEFAULTS : family.rules.defaults;
  const authority = source.authority ?? defaults.authority;
  const html = family.rules.html;
  const builder = new DocumentBuilder({
    authority,
    informativeSectionIds: new Set(html.informativeSectionIds),
    informativeHeadings: new Set(html.informativeHeadings.map((h) => h.toLowerCase())),
    informativeHeadingMarkers: (html.informativeHeadingMarkers ?? []).map((m) => m.toLowerCase()),
    keywordPatternFallback: true,
  });
  if (chosen !== null) {
    const { claim, generator } = chosen;
    const declaredType = claim.documentType === null ? '' : ` and declares the document type ${claim.documentType}`;
    const why = byUrl
      ? `The URL names the ${urlFamily.rules.id} family (documents of type ${urlFamily.rules.defaults.documentType}); `
      : 'No family names this URL; ';
    builder.info(
      'family-from-content',
      `${why}the document shows it was made by ${generator} (${claim.evidence})${declaredType}, ` +
        `so it was read with the ${family.rules.id} family's rules (match.generators).`,
    );
  }
  if (decoded !== null) {
    if (decoded.unknownLabel !== undefined) builder.warn('charset-unknown', `Unknown charset "${decoded.unknownLabel}"; decoded as UTF-8.`);
    if (decoded.replaced !== undefined) builder.warn('invalid-bytes', invalidBytesMessage(decoded));
    if (decoded.nul !== undefined) builder.warn('nul-characters', nulMessage(decoded.nul));
    warnMislabelled(builder, body, snapshot.contentType, extractor);
  }

  let title = '';
  let confidence = 50;
  const extra: Record<string, unknown> = {};
  switch (extractor) {
    case 'html': {
      const text = decoded!.text;
      const result = extractHtml({ source: text, baseUrl, rules: html, builder, links: options.links, ...(parsed ? { parsed } : {}) });
      title = result.title;
      builder.limits.add('scripts-not-executed');
      builder.limits.add('html5-tree-building-approximate');
      if (result.headingCount === 0) {
        builder.warn('no-headings', 'The document has no headings; all blocks are outside any section.');
        confidence = 50;
      } else {
        confidence = result.idCount * 2 >= builder.sections.length ? 90 : 70;
      }
      break;
    }
    case 'text': {
      const text = decoded!.text;
      if (family.rules.text.rfcLayout || looksLikeRfcText(text)) {
        const result = extractRfcText(text, builder);
        title = result.title;
        confidence = result.sectionCount > 0 ? 75 : 50;
      } else if (looksLikeVimHelp(text)) {
        title = extractVimHelp(text, builder).title;
        confidence = 75;
      } else if (looksLikeManText(text)) {
        title = extractManText(text, builder).title;
        confidence = 70;
      } else {
        title = extractPlainText(text, builder).title;
        confidence = 50;
      }
      builder.limits.add('text-layout-inferred');
      break;
    }
    case 'markdown': {
      const result = await extractMarkdown(decoded!.text, baseUrl, builder, options.links);
      title = result.title;
      if (result.headingCount === 0) {
        builder.warn('no-headings', 'The document has no headings; all blocks are outside any section.');
        confidence = 50;
      } else {
        confidence = 80;
      }
      break;
    }
    case 'xml': {
      const result = extractXml(decoded!.text, baseUrl, builder, options.links);
      title = result.title;
      confidence = result.confidence;
      break;
    }
    case 'pdf': {
      const result = await extractPdf(body, builder, { maxPages: options.pdfMaxPages });
      title = result.title;
      confidence = result.confidence;
      extra['pageCount'] = result.pageCount;
      if (Object.keys(result.metadata).length > 0) extra['metadata'] = result.metadata;
      builder.limits.add('no-ocr');
      builder.limits.add('pdf-reading-order-inferred');
      break;
    }
  }

  if (builder.metadata.size > 0 && extra['metadata'] === undefined) {
    extra['metadata'] = Object.fromEntries([...builder.metadata].sort((a, b) => compareCodeUnits(a[0], b[0])));
  }
  builder.finishKeywords();
  builder.settleIds();
  let selected: string | null = null;
  if (fragment !== null) {
    if (builder.selectFragment(fragment)) selected = fragment;
    else builder.warn('fragment-not-found', `The URL selects #${fragment}, but no section has that id; the whole document was extracted.`);
  }
  if (title === '') title = builder.sections[0]?.heading ?? '';
  // A document with error diagnostics is never reported as confidently structured.
  if (builder.diagnostics.some((d) => d.severity === 'error')) confidence = Math.min(confidence, 20);

  const document: EvidenceDocument = {
    documentId: input.documentId,
    sourceUrl: source.url,
    fragment: selected,
    title,
    family: family.rules.id,
    authority,
    documentType: defaults.documentType,
    contentTrust: 'untrusted-source',
    confidence,
    ...extra,
    provenance: {
      producer: { name: PRODUCER_NAME, version: PRODUCER_VERSION },
      extractor: { id: extractor, version: extractor === 'pdf' ? PDF_EXTRACTOR_VERSION : EXTRACT_RULE_VERSION },
      sourceSha256: snapshot.sha256,
      extractionConfigSha256: sha256Hex(canonicalJson(config)),
      snapshotId: snapshot.snapshotId,
      captureMethod: snapshot.captureMethod,
      contentType: snapshot.contentType,
    },
    sections: builder.sections,
    blocks: builder.blocks,
    diagnostics: builder.diagnostics,
    limits: [...builder.limits].sort(compareCodeUnits),
  };
  return document;
}

/** What NUL characters in decoded text mean, and the map field that reads UTF-16 without its BOM. */
/**
 * A warning when bytes read as text start with a binary format's signature (a PDF labelled
 * text/html): their text is the format's raw bytes, which no query should be answered from.
 */
function warnMislabelled(builder: DocumentBuilder, body: Uint8Array, contentType: string, readAs: string): void {
  const signature = binarySignature(body);
  if (signature === null) return;
  const fix =
    signature.contentType === 'application/pdf'
      ? 'label it application/pdf to extract it as a PDF'
      : 'it is not a format Episteme extracts';
  builder.warn(
    'content-type-mismatch',
    `The bytes start with the signature of ${signature.name} (${signature.contentType}), but the source is labelled ` +
      `${contentType} and was read as ${readAs}: ${fix} (the map entry's "contentType").`,
  );
}

function nulMessage(count: number): string {
  return (
    `The text holds ${count} NUL character(s) (U+0000), which no text format uses: the file may be UTF-16 without a ` +
    'byte order mark (set "charset": "utf-16le" or "utf-16be" in its map entry) or binary data.'
  );
}

/** The diagnostic of bytes invalid in their encoding: the text holds U+FFFD where the source had them. */
function invalidBytesMessage(decoded: { encoding: string; replaced?: number }): string {
  return (
    `The bytes are not valid ${decoded.encoding}: invalid sequences were replaced by U+FFFD ` +
    `(${decoded.replaced} in the text). The file may be saved half-way, binary, or in another charset.`
  );
}
