/**
 * The extraction options, their defaults and their ranges, with no imports: the build reads them to
 * key documents and bound work, and `extract --help` prints them without loading any extractor.
 */
export interface ExtractOptions {
  /** Wall-clock bound on extracting one PDF; past it the target fails with extract-timeout (never cached). */
  pdfTimeoutMs: number;
  /** PDFs with more pages are cut at this page (warning pdf-pages-truncated): deterministic, so a document. */
  pdfMaxPages: number;
  /** Record links (text + resolved href) per block. */
  links: boolean;
  /** Wall-clock bound on extracting one HTML, XML or text document; past it: extract-timeout. */
  timeoutMs: number;
  /** Heap bound of each extraction worker, in MiB; past it the target fails with extract-memory-limit. */
  maxHeapMb: number;
}

export const DEFAULT_EXTRACT_OPTIONS: ExtractOptions = Object.freeze({
  pdfTimeoutMs: 30_000,
  pdfMaxPages: 2_000,
  links: true,
  timeoutMs: 60_000,
  maxHeapMb: 2048,
});

/**
 * Time each MiB of a document's bytes adds to its wall-clock bound, by extractor: the bound scales with
 * the work a document needs (a 40 MiB PDF is given more time than a 40 KiB one) instead of being one
 * flat count of seconds. Generous floors of throughput on a slow, loaded machine (a PDF's pages are
 * laid out by pdfjs, the slow part); a bound is a guard against a hostile document, not a budget.
 */
export const EXTRACT_MS_PER_MIB: Readonly<Record<'pdf' | 'other', number>> = Object.freeze({ pdf: 20_000, other: 5_000 });

/**
 * The range of each numeric option (integers, inclusive). A value outside is a configuration error:
 * a 1e308 ms timeout must not wrap around to a 1 ms timer, nor a 0 page limit empty every PDF.
 */
export const EXTRACT_OPTION_RANGES: Record<'pdfTimeoutMs' | 'pdfMaxPages' | 'timeoutMs' | 'maxHeapMb', { min: number; max: number }> =
  Object.freeze({
    pdfTimeoutMs: { min: 1_000, max: 3_600_000 },
    pdfMaxPages: { min: 1, max: 100_000 },
    timeoutMs: { min: 1_000, max: 3_600_000 },
    maxHeapMb: { min: 64, max: 16_384 },
  });

/** Throws an Error naming the first option out of its range. */
export function validateExtractOptions(options: ExtractOptions): void {
  for (const [name, range] of Object.entries(EXTRACT_OPTION_RANGES)) {
    const value = options[name as keyof typeof EXTRACT_OPTION_RANGES];
    if (!Number.isInteger(value) || value < range.min || value > range.max) {
      throw new Error(`${name} must be an integer from ${range.min} to ${range.max} (got ${String(value)}).`);
    }
  }
}
