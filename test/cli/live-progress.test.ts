import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { CLI, sampleHtml } from '../helpers/rig.js';
import { TestServer } from '../capture/server.js';
import { Sandbox } from '../hostile/harness.js';

/**
 * The CLI in a real pseudo-terminal (tmux), on a workspace of a few hundred sources, three of which
 * fail (HTTP 404 from a loopback server) and one of which answers 503 before it answers: read the
 * screen while it builds and after. The status line updates in place (one line, its counter moving),
 * failures and retries appear as they happen with their reason, and the whole output, summary
 * included, fits in one screen.
 */

const SOURCES = 300;
const ROWS = 40;

function hasTmux(): boolean {
  try {
    execFileSync('tmux', ['-V'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const STATUS = /^\[(\d+)\/(\d+)\] (?!failed)\S+ +\d+:\d\d/;

test('live progress on a terminal: one status line updated in place, failures as they happen, a summary that fits a screen', {
  skip: hasTmux() ? false : 'tmux is not installed (apt-get install tmux; .ci/run does): the pseudo-terminal test is skipped',
  timeout: 300_000,
}, async () => {
  const server = await TestServer.start({
    // Unavailable once, with a Retry-After the capture honours, then the document.
    '/flaky': (_req, res, n) => {
      if (n === 1) {
        res.writeHead(503, { 'retry-after': '1', 'content-type': 'text/plain' });
        res.end('busy');
        return;
      }
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(sampleHtml(SOURCES + 1));
    },
  });
  const box = new Sandbox();
  const socket = `episteme-test-${process.pid}`;
  const tmux = (...args: string[]) => execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' });
  try {
    const map = [];
    for (let i = 0; i < SOURCES; i++) {
      map.push({ sourceUrl: `https://example.test/doc-${i}`, localPath: `src/doc-${i}.html`, contentType: 'text/html' });
      box.write({ [`src/doc-${i}.html`]: sampleHtml(i) });
    }
    const missing = [0, 1, 2].map((i) => server.url(`/missing-${i}`));
    const flaky = server.url('/flaky');
    box.write({ 'map.json': JSON.stringify(map), 'manifest.json': JSON.stringify([...missing, flaky].map((url) => ({ url }))) });
    const command = `${process.execPath} ${CLI} build --map map.json --manifest manifest.json --jobs 2; echo EXIT=$?; sleep 600`;
    tmux('new-session', '-d', '-s', 'build', '-x', '120', '-y', String(ROWS), '-c', box.ws, command);
    const screens: string[] = [];
    const deadline = Date.now() + 240_000;
    for (;;) {
      const screen = tmux('capture-pane', '-p', '-J', '-t', 'build');
      screens.push(screen);
      if (/EXIT=\d/.test(screen) || Date.now() > deadline) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const history = tmux('capture-pane', '-p', '-J', '-S', '-', '-t', 'build');
    const final = screens[screens.length - 1]!;
    assert.match(final, /EXIT=1/, final);

    // In place: never more than one status line on screen, and its counter moves.
    const counters = new Set<string>();
    for (const screen of screens) {
      const status = screen.split('\n').filter((line) => STATUS.test(line));
      assert.ok(status.length <= 1, `more than one status line on screen:\n${screen}`);
      if (status[0]) counters.add(STATUS.exec(status[0])![1]!);
    }
    assert.ok(counters.size >= 2, `the status line was seen with ${counters.size} counter value(s)`);
    // Erased at the end: the finished screen shows no status line.
    assert.ok(!final.split('\n').some((line) => STATUS.test(line)), final);

    // Failures as they happen, with the URL and the reason, before the summary.
    const lines = history.split('\n').filter((line) => line.trim() !== '');
    const summaryAt = lines.findIndex((line) => /^\d+ targets: /.test(line));
    assert.ok(summaryAt > 0, history);
    for (const url of missing) {
      const at = lines.findIndex(
        (line) => /^\[\d+\/\d+\] failed /.test(line) && line.includes(url.replace(/^http:\/\//, '')) && /404/.test(line),
      );
      assert.ok(at >= 0 && at < summaryAt, `no failure line with 404 for ${url} before the summary:\n${history}`);
    }
    // A retry is news while the build waits on it: a line of its own, with the status and the delay.
    const retryAt = lines.findIndex(
      (line) => line.includes(flaky.replace(/^http:\/\//, '')) && /503/.test(line) && /retry 1 in \d+ ms/.test(line),
    );
    assert.ok(retryAt >= 0 && retryAt < summaryAt, `no retry line for ${flaky} before the summary:\n${history}`);
    // Everything the build printed, summary included, fits in one screen.
    assert.ok(lines.length - 1 <= ROWS, `${lines.length} lines:\n${history}`);
    // The summary counts every target of the graph: each source's three, the four indexes and, above 256
    // documents, the indexes' segments.
    const graph = JSON.parse(
      execFileSync(process.execPath, [CLI, 'graph', '--map', 'map.json', '--manifest', 'manifest.json', '--format', 'json'], {
        cwd: box.ws,
        encoding: 'utf8',
      }),
    ) as { targets: { target: string }[] };
    const segments = graph.targets.filter((t) => t.target.includes('#')).length;
    assert.ok(segments >= 8, `${segments} segment targets`);
    assert.equal(graph.targets.length, (SOURCES + 4) * 3 + 4 + segments);
    assert.match(history, new RegExp(`^${graph.targets.length} targets: `, 'm'));
    assert.match(history, /--verbose lists all/);
  } finally {
    try {
      tmux('kill-server');
    } catch {
      // already gone
    }
    await server.close();
    box.cleanup();
  }
});
