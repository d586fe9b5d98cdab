import { Command, Option } from 'clipanion';
import { EpistemeError, type Warning } from '../failure.js';
import { defaultJobs } from '../graph/jobs.js';
import { invocationId } from '../graph/clean-build.js';
import type { FailOn } from '../graph/diagnostics.js';
import type { CommandResult } from './base-command.js';
import { jsonLine, type Output } from './output.js';
import { WorkspaceCommand } from './workspace-command.js';
import { inRange, JOBS_RANGE, oneOf, rangeText, WAIT_LOCK_SECONDS_RANGE } from './option-validators.js';
import { terminalSafe } from './terminal-text.js';
import { locatingArgs, withLocatingArgs } from './hint-commands.js';

const DEBOUNCE_MS_RANGE = { min: 10, max: 60_000 } as const;
/**
 * The window only has to cover the events of one save (an editor's temp write + rename, a truncate then
 * write: a few milliseconds apart); saves beyond it are absorbed by the content-hash check and the one
 * queued build. tsc (250 ms) and node --watch (500 ms) wait longer because a spurious run of theirs
 * recompiles or restarts everything; a spurious cycle here is one more O(changed) build. Every
 * millisecond of it is latency on each save (bench/watch-edit.ts reports it apart).
 */
const DEFAULT_DEBOUNCE_MS = 50;
const DEFAULT_WAIT_LOCK_SECONDS = 60;

export class WatchCommand extends WorkspaceCommand {
  static override paths = [['watch']];
  static override usage = Command.Usage({
    category: 'Build',
    description: 'Build, then rebuild what an edit changes each time an input is saved.',
    details:
      `
      Runs \`episteme build\` once, then watches every file a build reads: the workspace config, the manual-ingest map, the manifest, ` +
      `each manual-ingest source file and the extraction family rules. When they have been quiet for the debounce window, the saved ` +
      `files are hashed, and only a change of content starts a build: a \`touch\`, or a save of the same bytes, runs nothing. One build ` +
      `runs at a time and at most one waits behind it. The workspace's own outputs and build state are never watched, so a build cannot ` +
      `trigger another.

      Each build is the one-shot build (same keys, same committed files), so the workspace always equals a clean build, and a query ` +
      `answers at any moment from the last complete generation. Editors' atomic saves (write a temp file, rename it over the source) and ` +
      `a delete then re-create are followed. A config, map or rules file that is briefly invalid is reported with its structured error, ` +
      `and watching goes on; the next valid save recovers. Between builds the workspace, its graph, the build state (re-read only if ` +
      `another process changed it) and the stage workers stay in memory, so an edit to one source costs that source's chain and the ` +
      `index update. \`episteme build --watch\` is the same command, with the same options.

      Reports one line per cycle: what changed, which targets ran, how long the build took and when queries see the change. With --json, ` +
      `one JSON object per line on stdout (\`watching\`, \`cycle\`, \`ignored\`, \`stopped\`), then the envelope when watch ends. Ctrl-C ` +
      `(SIGINT) or SIGTERM ends it cleanly: a build in flight commits, the lock is released; exit 0.
    `,
    examples: [
      ['Watch the workspace in this folder', 'episteme watch'],
      ['One JSON line per build, for an agent', 'episteme watch --json'],
      ['Wait out longer bursts of saves', 'episteme watch --debounce 500'],
    ],
  });
  readonly commandName = 'watch';
  jobs = Option.String('--jobs', {
    description: `Parallel workers (default: all cores, here ${defaultJobs()}; ${rangeText(JOBS_RANGE)}).`,
    validator: inRange(JOBS_RANGE),
  });
  debounce = Option.String('--debounce', {
    description:
      'Milliseconds the inputs must be quiet before a build starts ' + `(default ${DEFAULT_DEBOUNCE_MS}; ${rangeText(DEBOUNCE_MS_RANGE)}).`,
    validator: inRange(DEBOUNCE_MS_RANGE),
  });
  waitLock = Option.String('--wait-lock', {
    description:
      'Seconds each build waits for another writer (e.g. a one-shot build) to release the workspace lock ' +
      `(default ${DEFAULT_WAIT_LOCK_SECONDS}; ${rangeText(WAIT_LOCK_SECONDS_RANGE)}).`,
    validator: inRange(WAIT_LOCK_SECONDS_RANGE),
  });
  allowPartial = Option.Boolean('--allow-partial', false, {
    description:
      'Build the chunk and search indexes from the sources that succeeded when some failed; the index records which are missing.',
  });
  failOn = Option.String('--fail-on', 'error', {
    description:
      'Report a cycle as failed when a built document carries extraction diagnostics of this severity or worse: ' +
      'error (default), warning, or never.',
    validator: oneOf(['error', 'warning', 'never'] as const),
  });

  async run(output: Output): Promise<CommandResult> {
    if (this.map === '-' || this.manifest === '-') {
      throw new EpistemeError('usage-error', 'watch cannot read the map or manifest from stdin: it reads them again on every change.', {
        hint: 'Give them as files.',
      });
    }
    // Not a workspace at all is a usage error now; an invalid one is watched until it is valid.
    const { CONFIG_FILE_NAME, NOT_A_WORKSPACE_HINT } = await import('../config/workspace.js');
    const { findConfigUpward } = await import('../store/find-workspace.js');
    if (this.config === undefined && this.map === undefined && this.manifest === undefined && findConfigUpward(process.cwd()) === null) {
      throw new EpistemeError(
        'config-not-found',
        `No ${CONFIG_FILE_NAME} in this folder or any folder above it, and no --map or --manifest given: ` +
          'this is not an Episteme workspace.',
        { hint: NOT_A_WORKSPACE_HINT },
      );
    }
    const { WatchSession } = await import('../watch/session.js');
    const { describeWatchEvent } = await import('../watch/events.js');
    const { summaryFailure } = await import('./build-runner.js');
    const { initFastHash } = await import('../store/hash.js');
    await initFastHash();
    const stdout = this.context.stdout;
    const stderr = this.context.stderr;
    this.hintArgs = locatingArgs(process.cwd(), this);
    // Said once, before the cycle line of the build it precedes.
    let rememberedNote: string | null = null;
    const session = new WatchSession({
      cwd: process.cwd(),
      flags: { config: this.config, map: this.map, manifest: this.manifest, maxInputBytes: this.maxInputBytes },
      invocation: invocationId(process.cwd(), { config: this.config, map: this.map, manifest: this.manifest }),
      jobs: this.jobs ?? defaultJobs(),
      waitLockMs: (this.waitLock ?? DEFAULT_WAIT_LOCK_SECONDS) * 1000,
      debounceMs: this.debounce ?? DEFAULT_DEBOUNCE_MS,
      allowPartial: this.allowPartial,
      debug: this.debug,
      remember: (ws) => {
        const data: { configWritten?: string } = {};
        rememberedNote = this.remember(ws, data);
        return data.configWritten ?? null;
      },
      failureOf: (summary) => summaryFailure(summary, { failOn: this.failOn as FailOn, verbose: false }),
      emit: (emitted, warnings: Warning[]) => {
        // A hint names commands that work from here: with the flags that reach this workspace.
        const event =
          emitted.event === 'cycle' && emitted.error?.hint !== undefined
            ? { ...emitted, error: { ...emitted.error, hint: withLocatingArgs(emitted.error.hint, this.hintArgs) } }
            : emitted;
        if (output.json) {
          stdout.write(jsonLine(warnings.length > 0 ? { ...event, warnings } : event));
          return;
        }
        if (event.event === 'cycle' && event.configWritten !== undefined && rememberedNote !== null) {
          stdout.write(terminalSafe(rememberedNote) + '\n');
          rememberedNote = null;
        }
        stdout.write(terminalSafe(describeWatchEvent(event)) + '\n');
        for (const w of warnings) stderr.write(terminalSafe(`warning [${w.code}]${w.target ? ` ${w.target}` : ''}: ${w.message}`) + '\n');
      },
    });
    const signal = await new Promise<string>((resolve) => {
      const onInt = () => stop('SIGINT');
      const onTerm = () => stop('SIGTERM');
      const stop = (name: string) => {
        process.off('SIGINT', onInt);
        process.off('SIGTERM', onTerm);
        resolve(name);
      };
      process.on('SIGINT', onInt);
      process.on('SIGTERM', onTerm);
      void session.start();
    });
    await session.stop(signal);
    return { data: { stopped: signal }, human: [] };
  }
}
