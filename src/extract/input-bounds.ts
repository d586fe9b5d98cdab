import { EpistemeError } from '../failure.js';

/**
 * Bounds on what one document may make extraction do, as deterministic functions of its bytes: the
 * same input trips the same bound on every machine, so a tripped bound is a stable failure
 * (`extract-bound-exceeded`, never cached as a document). Clock and memory bounds live in the stage
 * pool (extract-timeout, extract-memory-limit).
 */

/** HTML and XML tree depth, as in Blink and WebKit: deeper elements attach at this depth (a diagnostic, not a failure). */
export const MAX_TREE_DEPTH = 512;

/**
 * Outline depth: sections, list items and algorithm steps nested deeper than this are kept at this
 * depth (their text kept, warning `section-depth-capped` / `list-depth-capped`). Each level adds to
 * what every item below it carries (a section's number and ancestry, a step's path "1.1.1...", a list
 * line's indentation), so without it 100,000 nested lists (capped by the tree at 512 elements) write
 * hundreds of characters per input byte; real documents nest fewer than 12 levels.
 */
export const MAX_OUTLINE_DEPTH = 32;

/**
 * Longest text an HTML link records, in code units of its source text (before spaces collapse);
 * past it the text is cut, ending in "…". A link's text is the text of its element, so each of 512
 * nested links (the tree depth cap) held the rest of the document: output and time grew as depth x
 * size (a 1.8 MB page wrote a 102 MB document). The dev corpus's longest link text is 283.
 */
export const MAX_LINK_TEXT = 512;

/**
 * Text a document shows again at each reference to where it comes from (a cross-reference showing its
 * target's title, kramdown-rfc's `{{id}}` an unnumbered heading): at most MAX_LINK_TEXT code units, as
 * a link's text, else cut at a code point boundary, ending in "…". Copied whole, 5,000 references to a
 * 200 KB section name made one string past the longest V8 holds, and a 47 KB kramdown-rfc draft a
 * 50 MB document.
 */
export function boundedCopy(text: string): string {
  const head = linkTextHead(text);
  return head === text ? text : `${head}…`;
}

/** The first MAX_LINK_TEXT code units of `text`, without splitting a surrogate pair; `text` itself when no longer. */
export function linkTextHead(text: string): string {
  if (text.length <= MAX_LINK_TEXT) return text;
  let end = MAX_LINK_TEXT;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return text.slice(0, end);
}

/**
 * Longest source id (an element's `id` or `name`, an RFC XML anchor) a document keeps, in code units.
 * A section's id is copied into each of its blocks (`id`, `sectionId`, `fragment`), its subsections'
 * `parentId` and every chunk cut from them, so one long id was written once per paragraph: a 424 KB
 * page of 2,000 paragraphs under a 200,000-character id wrote a 1.2 GB document and 490 MB of chunks.
 * A longer id is read as no id (the block cites the enclosing section's), warning `id-too-long`.
 * The dev corpus's longest id is 94.
 */
export const MAX_SOURCE_ID_LENGTH = 256;

/**
 * Table cells that span slots: a cell's text fills every slot it covers (tables.ts), so one cell of
 * `colspan="1000"` copied its text 1,000 times, and a rowspan down 200 empty `<tr>` 200 times more (a
 * 2 KB table wrote 22 MB; 220 KB overran the longest string V8 allows). The copies of one document,
 * each counted as its text's length plus one, may total `factor` times the document's characters,
 * and at least `floorChars`; past that, a cell's span is read as one slot, warning `table-spans-capped`.
 */
export const TABLE_SPAN_COPY_BOUNDS = Object.freeze({ factor: 4, floorChars: 1024 * 1024 });

/** XML internal entities, after Expat (amplification factor 100 past 8 MiB) and XmlLite (100,000 expansions). */
export const XML_ENTITY_BOUNDS = Object.freeze({
  maxExpansions: 100_000,
  amplificationFactor: 100,
  amplificationActivationChars: 8 * 1024 * 1024,
  maxExpandedChars: 64 * 1024 * 1024,
});

/**
 * PDF: bytes of Flate-compressed streams once inflated (a Flate bomb inflates 1,000-fold), and text
 * items. Past the activation size, inflated bytes may be at most `amplificationFactor` times the file
 * (real PDFs are 2-20x), and never more than `maxInflatedBytes`.
 */
export const PDF_BOUNDS = Object.freeze({
  amplificationFactor: 100,
  amplificationActivationBytes: 64 * 1024 * 1024,
  maxInflatedBytes: 1024 * 1024 * 1024,
  maxTextItems: 5_000_000,
  /** Past this many text items, a PDF may have at most `textItemsPerByte` per byte of the file. */
  textItemsActivation: 50_000,
  textItemsPerByte: 1,
  /**
   * Levels of a PDF's outline, and links of a form field's /Parent chain, that pdfjs is asked to read
   * (pdf-streams.ts pdfTreeDepths): past it the outline, or the form fields, are not read (real PDFs
   * nest fewer than 10).
   */
  maxTreeDepth: 256,
});

export type InputBound = 'xml-entity-expansions' | 'xml-entity-amplification' | 'xml-entity-size' | 'pdf-inflated-bytes' | 'pdf-text-items';

export function boundExceeded(bound: InputBound, message: string): EpistemeError {
  return new EpistemeError('extract-bound-exceeded', message, {
    hint:
      'The document exceeds a fixed bound of extraction (see docs/extraction.md, "Bounds"); it is not extracted. ' +
      'Exclude the source or supply a sane copy.',
    details: { bound },
  });
}
