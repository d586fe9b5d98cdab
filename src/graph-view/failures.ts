import * as path from 'node:path';
import type { FailureCode, Warning } from '../failure.js';
import type { BuildSummary } from '../graph/build.js';
import { canonicalJsonFile } from '../store/canonical-json.js';
import { writeFileIfChanged } from '../store/atomic-file.js';
import { readRegularFileSync } from '../regular-file.js';

/**
 * Which targets the last build left failed, for `episteme graph`. The build state never records a
 * failure (a failed target keeps its previous record, so it is simply dirty next time); this small
 * report beside it is what lets the graph say "failed, and why" instead of only "dirty". Written after
 * every build that ran through the CLI (one-shot or watch), whole and atomically; it is a report, not
 * state: nothing decides what to build from it, and a missing or unreadable one means "none known".
 */
export const FAILURES_FILE = 'failures.json';
const FAILURES_VERSION = 1;

export interface RecordedFailure {
  status: 'failed' | 'skipped';
  code: FailureCode;
  message: string;
}

export function recordFailures(stateDir: string, summary: BuildSummary): void {
  const failed: Record<string, RecordedFailure> = {};
  for (const t of summary.targets) {
    if (t.status !== 'failed' && t.status !== 'skipped') continue;
    failed[t.target] = { status: t.status, code: t.error?.code ?? 'target-failed', message: t.error?.message ?? '' };
  }
  writeFileIfChanged(path.join(stateDir, FAILURES_FILE), canonicalJsonFile({ version: FAILURES_VERSION, failed }));
}

/** recordFailures, with a write that fails turned into a warning: the report must never fail a build. */
export function recordFailuresOrWarning(stateDir: string, summary: BuildSummary): Warning | null {
  try {
    recordFailures(stateDir, summary);
    return null;
  } catch (error) {
    return {
      code: 'failures-not-recorded',
      message: `Could not record the build's failures for \`episteme graph\`: ${(error as Error).message}`,
    };
  }
}

export function readFailures(stateDir: string): Map<string, RecordedFailure> {
  try {
    const parsed = JSON.parse(readRegularFileSync(path.join(stateDir, FAILURES_FILE), 'utf8')) as {
      version?: number;
      failed?: Record<string, RecordedFailure>;
    };
    if (parsed.version !== FAILURES_VERSION || typeof parsed.failed !== 'object' || parsed.failed === null) return new Map();
    return new Map(Object.entries(parsed.failed));
  } catch {
    return new Map();
  }
}
