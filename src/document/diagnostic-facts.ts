/**
 * An extracted document's error and warning diagnostics as record facts (counts and codes), so every
 * build (a no-op included) can report and gate on them without reading the documents again.
 */

/** Record facts for an extracted document's artifact bytes: its error and warning counts and codes. */
export function diagnosticFacts(bytes: string | Buffer): Record<string, string> {
  const text = typeof bytes === 'string' ? bytes : bytes.toString('utf8');
  return diagnosticFactsOf((JSON.parse(text) as { payload?: { diagnostics?: { code: string; severity: string }[] } }).payload?.diagnostics);
}

/** The same facts from a document already parsed. */
export function diagnosticFactsOf(list: { code: string; severity: string }[] | undefined): Record<string, string> {
  const diagnostics = list ?? [];
  let errors = 0;
  let warnings = 0;
  const codes = new Set<string>();
  for (const d of diagnostics) {
    if (d.severity === 'error') errors += 1;
    else if (d.severity === 'warning') warnings += 1;
    else continue;
    codes.add(d.code);
  }
  return { diagnosticErrors: String(errors), diagnosticWarnings: String(warnings), diagnosticCodes: [...codes].sort().join(' ') };
}
