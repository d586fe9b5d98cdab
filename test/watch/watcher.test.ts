import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Watcher } from '../../src/watch/watcher.js';

/**
 * The watch state machine alone: builds are promises the test resolves by hand, so every transition
 * (burst -> one build, events during a build -> one queued build, stop during a build) is observed
 * at the moment it happens. Only the debounce timer is real (a few milliseconds).
 */
function harness(changedContent: (paths: string[]) => string[] = (paths) => paths) {
  const builds: { changed: string[]; finish: () => void; fail: (error: Error) => void }[] = [];
  const ignored: string[][] = [];
  const faults: { error: unknown; paths: string[] }[] = [];
  let wake: (() => void) | null = null;
  const watcher = new Watcher({
    debounceMs: 5,
    confirm: changedContent,
    build: (changed) =>
      new Promise<void>((resolve, reject) => {
        builds.push({ changed, finish: resolve, fail: reject });
        wake?.();
      }),
    ignored: (paths) => {
      ignored.push(paths);
      wake?.();
    },
    fault: (error, paths) => {
      faults.push({ error, paths });
      wake?.();
    },
  });
  const until = async (condition: () => boolean): Promise<void> => {
    while (!condition()) await new Promise<void>((resolve) => (wake = resolve));
  };
  return { watcher, builds, ignored, faults, until };
}

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

test('a burst of events is one build of every path it named, after the first build settles', async () => {
  const { watcher, builds, until } = harness();
  watcher.start();
  assert.equal(watcher.state, 'building');
  builds[0]!.finish();
  await tick();
  assert.equal(watcher.state, 'idle');
  for (let i = 0; i < 50; i += 1) watcher.noteEvent(i % 2 === 0 ? '/w/a' : '/w/b');
  assert.equal(watcher.state, 'settling');
  await until(() => builds.length === 2);
  assert.deepEqual(builds[1]!.changed, ['/w/a', '/w/b']);
  assert.equal(watcher.state, 'building');
});

test('events during a build queue exactly one more build; more events join it', async () => {
  const { watcher, builds, until } = harness();
  watcher.start();
  watcher.noteEvent('/w/a');
  assert.equal(watcher.state, 'building-queued');
  watcher.noteEvent('/w/b');
  watcher.noteEvent('/w/a');
  assert.equal(watcher.state, 'building-queued');
  builds[0]!.finish();
  await tick();
  assert.equal(watcher.state, 'settling');
  await until(() => builds.length === 2);
  assert.deepEqual(builds[1]!.changed, ['/w/a', '/w/b']);
  builds[1]!.finish();
  await tick();
  assert.equal(watcher.state, 'idle');
  assert.equal(builds.length, 2);
});

test('events whose content did not change run nothing', async () => {
  const { watcher, builds, ignored, until } = harness(() => []);
  watcher.start();
  builds[0]!.finish();
  await tick();
  watcher.noteEvent('/w/a');
  await until(() => ignored.length === 1);
  assert.deepEqual(ignored[0], ['/w/a']);
  assert.equal(watcher.state, 'idle');
  assert.equal(builds.length, 1);
});

test('stop during a build waits for it to commit and starts nothing queued', async () => {
  const { watcher, builds } = harness();
  watcher.start();
  watcher.noteEvent('/w/a');
  let stopped = false;
  const stopping = watcher.stop().then(() => (stopped = true));
  assert.equal(watcher.state, 'stopping');
  watcher.noteEvent('/w/b');
  await tick();
  assert.equal(stopped, false);
  builds[0]!.finish();
  await stopping;
  assert.equal(watcher.state, 'stopped');
  assert.equal(builds.length, 1);
});

test('a confirm that throws is a fault with its paths, not the end of the process; the next event confirms again', async () => {
  let throwing = true;
  const { watcher, builds, faults, until } = harness((paths) => {
    if (throwing) throw new Error('ELOOP: too many symbolic links encountered');
    return paths;
  });
  watcher.start();
  builds[0]!.finish();
  await tick();
  watcher.noteEvent('/w/a');
  await until(() => faults.length === 1);
  assert.deepEqual(faults[0]!.paths, ['/w/a']);
  assert.match(String(faults[0]!.error), /ELOOP/);
  assert.equal(watcher.state, 'idle');
  throwing = false;
  watcher.noteEvent('/w/a');
  await until(() => builds.length === 2);
  assert.deepEqual(builds[1]!.changed, ['/w/a']);
});

test('a build that rejects is a fault, and the watcher goes on to the queued build', async () => {
  const { watcher, builds, faults, until } = harness();
  watcher.start();
  watcher.noteEvent('/w/a');
  builds[0]!.fail(new Error('unexpected'));
  await until(() => faults.length === 1 && builds.length === 2);
  assert.deepEqual(builds[1]!.changed, ['/w/a']);
});
