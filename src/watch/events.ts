import type { FailureCode } from '../failure.js';
import type { TargetStatus } from '../graph/scheduler.js';

/**
 * Everything `episteme watch` reports: one closed union, rendered as one JSON line each (--json) or
 * one human line each. A cycle is one build; its times are wall-clock milliseconds (a report, never an
 * artifact).
 */
export type WatchEvent =
  | {
      event: 'watching'; // the first build is about to run; these inputs are watched
      inputs: number;
      debounceMs: number;
    }
  | {
      event: 'cycle'; // one build ran, started by the start of watch or by confirmed changes
      cycle: number;
      trigger: 'start' | 'change';
      /** Workspace-relative inputs whose content changed (empty for the first build). */
      changed: string[];
      ok: boolean;
      /** Targets whose rule ran (built: new bytes; unchanged: same bytes, early cutoff). */
      ran: string[];
      failed: string[];
      counts: Partial<Record<TargetStatus, number>>;
      /**
       * Of the up-to-date targets, those taken as a whole with their proof group, whose last check held
       * and whose files had no event since (graph/settled-groups.ts); the others were checked one by one.
       */
      settled: number;
      /** Milliseconds the build took, from its start to its commit. */
      buildMs: number;
      /** Where the build's time went: loading the workspace, then each phase of the engine (for diagnosis). */
      phasesMs: Record<string, number>;
      /** Milliseconds each target in `ran` took, from its start to its output's commit (for diagnosis). */
      ranMs: Record<string, number>;
      /**
       * Milliseconds from the first file event of the change to the start of the build: the debounce
       * window, then hashing the saved inputs; null for the first build.
       */
      settleMs: number | null;
      /**
       * The extract targets whose task watch started while the save settled (watch/speculation.ts) and
       * whose result the build took, with how long that task ran (ms): the build waited only for what was
       * left of it (its ranMs). Absent when none.
       */
      speculatedMs?: Record<string, number>;
      /**
       * Milliseconds from the first file event of the change to the moment a query sees the change (the
       * search index committed); null for the first build.
       */
      queryReadyMs: number | null;
      /**
       * The extraction diagnostics of the documents this cycle built (errors and warnings by code), as
       * the one-shot build's summary gives them: a save of bad bytes shows here at once. Absent when none.
       */
      diagnostics?: { target: string; errors: number; warnings: number; codes: string[] }[];
      /**
       * The config this watch wrote before the build, for a workspace given only by --map or --manifest
       * (config/remember-workspace.ts); absent when none was written.
       */
      configWritten?: string;
      /** Why the build could not run or failed: the structured error a one-shot build reports. */
      error?: { code: FailureCode; message: string; hint?: string; details?: Record<string, unknown> };
    }
  | {
      event: 'ignored'; // file events whose inputs hold the bytes the last build saw: nothing ran
      paths: string[];
    }
  | {
      event: 'stopped'; // the watch ended on a signal, after any build in flight committed
      signal: string;
      cycles: number;
    };

/** One human line per event. */
export function describeWatchEvent(event: WatchEvent): string {
  switch (event.event) {
    case 'watching':
      return `watching ${event.inputs} input file(s) (debounce ${event.debounceMs} ms); Ctrl-C stops`;
    case 'cycle': {
      const what = event.trigger === 'start' ? 'start' : `changed ${listed(event.changed, 3)}`;
      const ran = event.ran.length === 0 ? 'nothing ran' : `${event.ran.length} target(s) ran (${listed(event.ran, 4)})`;
      const failed = event.failed.length > 0 ? `, ${event.failed.length} failed (${listed(event.failed, 3)})` : '';
      const ready = event.queryReadyMs === null ? '' : `; queries see it ${event.queryReadyMs} ms after the save`;
      const error = event.error
        ? `; error [${event.error.code}]: ${event.error.message}${event.error.hint ? ` hint: ${event.error.hint}` : ''}`
        : '';
      const diagnostics =
        event.diagnostics === undefined
          ? ''
          : `; diagnostics: ${listed(
              event.diagnostics.map((d) => `${d.target} ${d.errors > 0 ? 'error' : 'warning'} (${d.codes.join(', ')})`),
              3,
            )}`;
      return `[${event.cycle}] ${what}: ${ran}${failed} in ${event.buildMs} ms${ready}${diagnostics}${error}`;
    }
    case 'ignored':
      return `unchanged content, nothing to do: ${listed(event.paths, 3)}`;
    case 'stopped':
      return `stopped (${event.signal}) after ${event.cycles} build(s); the last commit stands`;
    default:
      return unreachable(event);
  }
}

function listed(items: string[], max: number): string {
  return items.length <= max ? items.join(', ') : `${items.slice(0, max).join(', ')} and ${items.length - max} more`;
}

function unreachable(value: never): never {
  throw new Error(`unreachable watch event ${JSON.stringify(value)}`);
}
