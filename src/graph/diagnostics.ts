/**
 * Extraction diagnostics of built documents, carried in the extract target's record facts so every
 * build (a no-op included) can report and gate on them without reading the documents again.
 */
export interface TargetDiagnostics {
  errors: number;
  warnings: number;
  /** Distinct codes of the error and warning diagnostics, sorted by code unit. */
  codes: string[];
}

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

/** The diagnostics recorded in a target's facts; undefined when there are none to report. */
export function diagnosticsOf(facts: Record<string, string> | undefined): TargetDiagnostics | undefined {
  if (!facts || facts.diagnosticErrors === undefined) return undefined;
  const errors = Number(facts.diagnosticErrors);
  const warnings = Number(facts.diagnosticWarnings ?? 0);
  if (errors === 0 && warnings === 0) return undefined;
  return { errors, warnings, codes: facts.diagnosticCodes ? facts.diagnosticCodes.split(' ') : [] };
}

export type FailOn = 'error' | 'warning' | 'never';

/** Whether a document's diagnostics reach the --fail-on severity. */
export function failsOn(diagnostics: TargetDiagnostics | undefined, failOn: FailOn): boolean {
  if (!diagnostics || failOn === 'never') return false;
  return diagnostics.errors > 0 || (failOn === 'warning' && diagnostics.warnings > 0);
}
