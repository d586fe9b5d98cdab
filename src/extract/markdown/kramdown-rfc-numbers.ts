/**
 * The section numbers a kramdown-rfc or mmark draft is rendered with (xml2rfc numbers them; the
 * Markdown writes none): headings after `--- middle` (mmark: `{mainmatter}`) are sections 1, 1.1, ...;
 * after `--- back` (`{backmatter}`) appendices A, A.1, ...; those before (the abstract and notes) and
 * those marked `{:numbered="false"}` or mmark's `.#` (and all below one) have none. A draft with no
 * such marker numbers its headings from the first.
 */
export interface NumberedHeading {
  /** Its source line (0-based), to place it among the part markers. */
  line: number;
  level: number;
  /** Marked `{:numbered="false"}`. */
  unnumbered: boolean;
}

export function kramdownRfcNumbers(headings: readonly NumberedHeading[], middle: number | null, back: number | null): (string | null)[] {
  const numbers: (string | null)[] = [];
  const counters: number[] = [];
  // The level of an unnumbered heading whose subsections are unnumbered too, while inside it.
  let unnumberedLevel: number | null = null;
  let inBack = false;
  for (const heading of headings) {
    const part = back !== null && heading.line > back ? 'back' : middle === null || heading.line > middle ? 'middle' : 'front';
    if (part === 'back' && !inBack) {
      inBack = true;
      counters.length = 0;
      unnumberedLevel = null;
    }
    if (unnumberedLevel !== null && heading.level <= unnumberedLevel) unnumberedLevel = null;
    if (part === 'front' || heading.unnumbered || unnumberedLevel !== null) {
      if (heading.unnumbered && unnumberedLevel === null) unnumberedLevel = heading.level;
      numbers.push(null);
      continue;
    }
    // A level skipped (## under #, with no # yet) counts from 1, as xml2rfc nests it.
    counters.length = Math.min(counters.length, heading.level);
    while (counters.length < heading.level - 1) counters.push(1);
    if (counters.length < heading.level) counters.push(0);
    counters[heading.level - 1]! += 1;
    const parts = counters.map(String);
    if (part === 'back') parts[0] = appendixLetter(counters[0]!);
    numbers.push(parts.join('.'));
  }
  return numbers;
}

/** Appendix A, B, ..., Z, AA, AB, ... */
function appendixLetter(n: number): string {
  let out = '';
  for (let k = n; k > 0; k = Math.floor((k - 1) / 26)) out = String.fromCharCode(65 + ((k - 1) % 26)) + out;
  return out;
}
