import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { REPO_ROOT } from '../helpers/rig.js';
import { CAPTURE_BOUND_RANGES, MAX_READ_BYTES, MAX_TIMER_MS } from '../../src/capture/bounds.js';
import { Sandbox, assertFailure } from './harness.js';

/**
 * Every flag and config field that sets a bound takes only values the runtime can honour: a timeout
 * of 1e308 ms is an error, not Node's silent 1 ms; a fraction where an integer is meant is an error;
 * and --help states each range.
 */

const QUICK = { maxMs: 15_000, maxRssMb: 250 };

interface FlagCase {
  command: string[];
  flag: string;
  range: string;
}

const FLAGS: FlagCase[] = [
  ...Object.entries({
    '--connect-timeout-ms': 'connectTimeoutMs',
    '--request-timeout-ms': 'requestTimeoutMs',
    '--max-response-bytes': 'maxResponseBytes',
    '--retries': 'retries',
    '--retry-delay-ms': 'retryDelayMs',
    '--max-retry-after-ms': 'maxRetryAfterMs',
    '--max-redirects': 'maxRedirects',
    '--max-sources': 'maxSources',
    '--fetch-concurrency': 'concurrency',
  } as const).map(([flag, bound]) => ({
    command: ['snapshot'],
    flag,
    range: `${CAPTURE_BOUND_RANGES[bound].min} to ${CAPTURE_BOUND_RANGES[bound].max}`,
  })),
  { command: ['build'], flag: '--jobs', range: '1 to 256' },
  { command: ['build'], flag: '--wait-lock', range: '0 to 86400' },
  { command: ['build'], flag: '--max-age', range: `0 to ${2 ** 31 - 1}` },
  { command: ['build'], flag: '--max-input-bytes', range: `1 to ${MAX_READ_BYTES}` },
  { command: ['diff', '--before', 'x'], flag: '--max-input-bytes', range: `1 to ${MAX_READ_BYTES}` },
  { command: ['query', '--index', 'x', '--term', 'a'], flag: '--limit', range: '1 to 1000' },
  { command: ['query', '--index', 'x', '--term', 'a'], flag: '--offset', range: `0 to ${2 ** 31 - 1}` },
  { command: ['query', '--index', 'x', '--term', 'a'], flag: '--max-chars', range: '1 to 10000000' },
  { command: ['query', '--index', 'x', '--term', 'a'], flag: '--max-snippet-chars', range: '1 to 1000000' },
  { command: ['query', '--index', 'x', '--term', 'a'], flag: '--max-input-bytes', range: `1 to ${MAX_READ_BYTES}` },
];

/** Values no bound accepts: past every maximum, past what a timer or Buffer holds, fractions, junk. */
const BAD_VALUES = ['1e308', '99999999999999999999', '1.5', '-1'];

test('every bound-setting flag refuses values outside its range, naming the flag and the range, and --help states it', async () => {
  const sandbox = new Sandbox();
  try {
    const outside = sandbox.outside();
    const checkFlag = async (c: FlagCase): Promise<void> => {
      const [min, max] = c.range.split(' to ').map(Number) as [number, number];
      for (const value of [...BAD_VALUES, String(max + 1), ...(min > 0 ? [String(min - 1)] : [])]) {
        const result = await sandbox.run([...c.command, `${c.flag}=${value}`, '--json']);
        assertFailure(result, { code: 'usage-error', exit: 2, ...QUICK });
        const message = result.json!.error!.message;
        assert.ok(message.includes(c.flag) && message.includes(`from ${c.range}`), `${c.command[0]} ${c.flag}=${value}: ${message}`);
      }
      const help = await sandbox.run([c.command[0]!, '--help']);
      assert.ok(help.stdout.replace(/\s+/g, ' ').includes(`from ${c.range}`), `${c.command[0]} --help states the range of ${c.flag}`);
    };
    // Three flags at a time: a few hundred short CLI runs.
    for (let i = 0; i < FLAGS.length; i += 3) await Promise.all(FLAGS.slice(i, i + 3).map(checkFlag));
    assert.equal(sandbox.outside(), outside);
  } finally {
    sandbox.cleanup();
  }
});

test('the largest allowed timeout is one Node honours (not the 1 ms it silently uses past 2^31-1)', () => {
  for (const bound of ['connectTimeoutMs', 'requestTimeoutMs', 'retryDelayMs', 'maxRetryAfterMs'] as const) {
    assert.ok(CAPTURE_BOUND_RANGES[bound].max <= MAX_TIMER_MS, bound);
  }
  assert.ok(CAPTURE_BOUND_RANGES.maxResponseBytes.max <= MAX_READ_BYTES);
});

test('config limits are range-checked the same way: config-invalid naming the field and its range', async () => {
  const schema = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'schema', 'workspace-config.schema.json'), 'utf8')) as {
    properties: {
      limits: {
        properties: { maxFileBytes: { maximum: number }; capture: { properties: Record<string, { minimum: number; maximum: number }> } };
      };
    };
  };
  // The schema and the flags enforce one set of ranges.
  for (const [bound, range] of Object.entries(CAPTURE_BOUND_RANGES)) {
    const field = schema.properties.limits.properties.capture.properties[bound]!;
    assert.deepEqual({ min: field.minimum, max: field.maximum }, range, `limits.capture.${bound}`);
  }
  assert.equal(schema.properties.limits.properties.maxFileBytes.maximum, MAX_READ_BYTES);

  const sandbox = new Sandbox();
  try {
    const outside = sandbox.outside();
    const cases: { limits: unknown; field: string; range: string }[] = [
      { limits: { maxFileBytes: 1e308 }, field: 'limits.maxFileBytes', range: `from 1 to ${MAX_READ_BYTES}` },
      { limits: { maxFileBytes: 1.5 }, field: 'limits.maxFileBytes', range: `from 1 to ${MAX_READ_BYTES}` },
      { limits: { maxFileBytes: 0 }, field: 'limits.maxFileBytes', range: `from 1 to ${MAX_READ_BYTES}` },
      { limits: { capture: { requestTimeoutMs: 1e308 } }, field: 'limits.capture.requestTimeoutMs', range: 'from 1 to 3600000' },
      { limits: { capture: { connectTimeoutMs: '10' } }, field: 'limits.capture.connectTimeoutMs', range: 'from 1 to 600000' },
      {
        limits: { capture: { maxResponseBytes: 2 ** 31 } },
        field: 'limits.capture.maxResponseBytes',
        range: `from 1 to ${MAX_READ_BYTES}`,
      },
      { limits: { capture: { maxSources: 1e9 } }, field: 'limits.capture.maxSources', range: 'from 1 to 1000000' },
      { limits: { capture: { retries: 2.5 } }, field: 'limits.capture.retries', range: 'from 0 to 10' },
    ];
    for (const c of cases) {
      sandbox.write({ 'episteme.json': JSON.stringify({ manifest: 'm.json', limits: c.limits }), 'm.json': '[]' });
      for (const command of ['build', 'snapshot']) {
        const result = await sandbox.run([command, '--json']);
        assertFailure(result, { code: 'config-invalid', exit: 2, ...QUICK });
        const problems = (result.json!.error!.details as { problems: string[] }).problems;
        assert.ok(
          problems.some((p) => p.startsWith(`field ${c.field}: `) && p.includes(c.range)),
          `${JSON.stringify(c.limits)}: ${problems.join('; ')}`,
        );
      }
    }
    assert.equal(sandbox.outside(), outside);
  } finally {
    sandbox.cleanup();
  }
});
