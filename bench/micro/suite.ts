import { Bench } from 'tinybench';

/**
 * One micro-benchmark suite: tinybench runs every task in this process, then the report gives each
 * task's mean time per call and its ratio to the suite's baseline (the first task), measured in the
 * same run, so a loaded machine shifts both sides alike.
 */
export interface MicroTask {
  name: string;
  fn: () => unknown;
}

export async function runSuite(
  title: string,
  what: string,
  baseline: MicroTask,
  tasks: MicroTask[],
  time = Number(process.env['MICRO_TIME_MS'] ?? 500),
): Promise<void> {
  const bench = new Bench({ time, warmup: true });
  for (const task of [baseline, ...tasks]) bench.add(task.name, task.fn);
  await bench.run();
  console.log(`${title}: ${what}`);
  const meanOf = (name: string): number | undefined => {
    const result = bench.getTask(name)?.result;
    return result !== undefined && 'latency' in result ? result.latency.mean : undefined;
  };
  const base = meanOf(baseline.name);
  for (const task of [baseline, ...tasks]) {
    const mean = meanOf(task.name);
    if (mean === undefined || base === undefined) {
      console.log(
        `  ${task.name.padEnd(48)} FAILED: ${String((bench.getTask(task.name)?.result as { error?: unknown } | undefined)?.error)}`,
      );
      process.exitCode = 1;
      continue;
    }
    const ratio = task === baseline ? 'baseline' : `${(mean / base).toFixed(2)}x`;
    console.log(`  ${task.name.padEnd(48)} ${(mean * 1000).toFixed(2).padStart(10)} µs/call  ${ratio}`);
  }
}

/** Keeps a result alive so the engine cannot drop the work that made it. */
export let sink: unknown;
export function keep(value: unknown): void {
  sink = value;
}
