export { diagnosticFacts, diagnosticFactsOf } from '../document/diagnostic-facts.js';

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
