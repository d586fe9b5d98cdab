import { test } from 'node:test';
import { seededRandom } from '../helpers/random.js';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { loadManifest, parseManifest } from '../../src/config/manifest.js';
import { parseJsonInput } from '../../src/store/bounded-input.js';
import { loadManualIngestMap } from '../../src/config/manual-ingest-map.js';
import { EpistemeError, exitCodeFor } from '../../src/failure.js';
import { Rig, assertNoStackTrace } from '../helpers/rig.js';

/**
 * Malformed manifests and manual-ingest maps, generated from a fixed seed: random JSON, wrong types,
 * extra fields, duplicate URLs hidden by host case or a default port, bad schemes, huge strings, broken
 * JSON text. Each one goes through the same loader the CLI uses and must be a structured error of an
 * exit-2 code, never an uncaught exception; a sample also goes through the real CLI.
 */
const CASES_PER_KIND = 600;

type Kind = 'manifest' | 'map';

class Generator {
  constructor(private readonly random: () => number) {}

  int(n: number): number {
    return Math.floor(this.random() * n);
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }

  string(): string {
    return this.pick([
      '',
      'x',
      'https://',
      'http://[::1',
      'ftp://example.test/a',
      'file:///etc/passwd',
      'javascript:alert(1)',
      'data:text/html,hi',
      'mailto:a@b.test',
      'https://user:pw@example.test/',
      '\u0000\uffff\ud800',
      'https://example.test/' + 'x'.repeat(5000),
      'y'.repeat(100_000),
      ' https://example.test/',
      'HTTPS://',
      '//example.test/',
    ]);
  }

  /** Any JSON value, nested a little. */
  json(depth = 0): unknown {
    switch (this.int(depth > 2 ? 5 : 8)) {
      case 0:
        return null;
      case 1:
        return this.random() < 0.5;
      case 2:
        return this.pick([0, -1, 1.5, 1e308, -0, 2 ** 53]);
      case 3:
        return this.string();
      case 4:
        return 'https://example.test/' + this.int(5);
      case 5:
        return Array.from({ length: this.int(4) }, () => this.json(depth + 1));
      default: {
        const keys = [
          'url',
          'sourceUrl',
          'localPath',
          'family',
          'authority',
          'extractor',
          'contentType',
          'charset',
          '__proto__',
          'constructor',
          'extra',
        ];
        return Object.fromEntries(Array.from({ length: this.int(5) }, () => [this.pick(keys), this.json(depth + 1)]));
      }
    }
  }

  validEntry(kind: Kind, i: number): Record<string, unknown> {
    return kind === 'manifest'
      ? { url: `https://example.test/doc${i}` }
      : { sourceUrl: `https://example.test/doc${i}`, localPath: 'src/doc.html' };
  }

  /** One malformed document (JSON text), with at least one defect that must be rejected. */
  malformed(kind: Kind): string {
    const urlField = kind === 'manifest' ? 'url' : 'sourceUrl';
    const entries = Array.from({ length: 1 + this.int(4) }, (_, i) => this.validEntry(kind, i));
    const target = entries[this.int(entries.length)]!;
    switch (this.int(12)) {
      case 0: {
        // random JSON that is not an array of entries (an empty array would be valid: never generated)
        let value = this.json();
        while (Array.isArray(value) && value.length === 0) value = this.json();
        if (Array.isArray(value)) value = [...value, 17];
        return JSON.stringify(value);
      }
      case 1:
        // defineProperty: a plain assignment to "__proto__" would set the prototype, not a field
        Object.defineProperty(target, this.pick(['colour', 'URL', 'source', '__proto__', 'constructor', 'localpath', 'Url']), {
          value: this.json(),
          enumerable: true,
          writable: true,
          configurable: true,
        });
        break;
      case 2:
        target[urlField] = this.pick([42, null, true, [], {}, ['https://example.test/']]);
        break;
      case 3:
        target[this.pick(['family', 'authority', 'extractor'])] = this.pick([
          1,
          '',
          'Normative',
          'w3c ',
          'doc',
          null,
          'UPPER',
          [],
          'no-such-family-' + this.int(100),
        ]);
        break;
      case 4: {
        // duplicates hidden by host case, a default port or an empty path
        const base = entries[0]![urlField] as string;
        const twin = this.pick([
          base.replace('example.test', 'EXAMPLE.Test'),
          base.replace('example.test', 'example.test:443'),
          base.replace('https', 'HTTPS'),
        ]);
        entries.push({ ...entries[0], [urlField]: twin });
        break;
      }
      case 5: {
        entries[0]![urlField] = 'http://example.test';
        entries.push({
          ...entries[0],
          [urlField]: this.pick(['http://example.test/', 'http://example.test:80', 'HTTP://EXAMPLE.TEST:80/']),
        });
        break;
      }
      case 6:
        target[urlField] = this.pick([
          'ftp://example.test/a',
          'file:///etc/passwd',
          'javascript:alert(1)',
          'https://user:pw@example.test/',
          'http://[::1',
          'https://',
          'data:,x',
          'ws://example.test/',
        ]);
        break;
      case 7:
        target[urlField] = 'https://example.test/' + 'z'.repeat(4097 + this.int(50_000));
        break;
      case 8:
        delete target[this.pick(kind === 'manifest' ? ['url'] : ['sourceUrl', 'localPath'])];
        break;
      case 9: {
        // broken JSON text
        const text = JSON.stringify(entries);
        return this.pick([
          text.slice(0, 1 + this.int(text.length - 1)),
          text + ']',
          '\ufeff' + text.replace('[', '[,'),
          text.replace(/"/, "'"),
          '',
        ]);
      }
      case 10:
        if (kind === 'map') target.localPath = this.pick(['src/missing.html', '', 'src', 'src/doc.html\u0000', 'x'.repeat(5000)]);
        else target.url = this.pick(['', ' ', 'https://exa mple.test/', 'https://example.test:99999/']);
        break;
      default:
        // many entries, one broken deep inside
        for (let i = 0; i < 200; i += 1) entries.push(this.validEntry(kind, 100 + i));
        entries[150]![this.pick(['extra', urlField])] = this.pick([{}, 5, 'ftp://x.test/']);
        break;
    }
    return JSON.stringify(entries);
  }
}

/**
 * Manifests go through parseJsonInput + parseManifest in memory (what loadManifest does after reading
 * the bytes), every 10th through loadManifest from a file; maps through loadManualIngestMap (it checks
 * files on disk, so it reads the map from disk too).
 */
async function loadThroughLoader(kind: Kind, text: string, i: number, rig: Rig): Promise<unknown> {
  const context = { cwd: rig.dir, root: rig.dir, maxInputBytes: 8 * 1024 * 1024 };
  if (kind === 'manifest' && i % 10 !== 0)
    return parseManifest(parseJsonInput(Buffer.from(text), 'manifest-invalid', 'manifest.json'), 'manifest.json');
  const file = rig.path(`${kind}-fuzz.json`);
  fs.writeFileSync(file, text);
  return kind === 'manifest' ? loadManifest(file, context) : loadManualIngestMap(file, context);
}

test(`${2 * CASES_PER_KIND} malformed manifests and maps: every one a structured exit-2 error, no uncaught exception`, async () => {
  const rig = new Rig();
  try {
    rig.write({ 'src/doc.html': '<p>doc</p>' });
    const generator = new Generator(seededRandom(20260901));
    const codes = new Map<string, number>();
    for (const kind of ['manifest', 'map'] as const) {
      for (let i = 0; i < CASES_PER_KIND; i += 1) {
        const text = generator.malformed(kind);
        let thrown: unknown = null;
        try {
          await loadThroughLoader(kind, text, i, rig);
        } catch (error) {
          thrown = error;
        }
        const where = `${kind} case ${i}: ${text.slice(0, 300)}`;
        assert.ok(thrown !== null, `accepted: ${where}`);
        assert.ok(thrown instanceof EpistemeError, `not a structured error (${String(thrown)}): ${where}`);
        assert.equal(exitCodeFor(thrown.code), 2, `${thrown.code}: ${where}`);
        assert.ok(thrown.message.length > 0 && thrown.message.length < 20_000, `message length ${thrown.message.length}: ${where}`);
        codes.set(thrown.code, (codes.get(thrown.code) ?? 0) + 1);
      }
    }
    assert.deepEqual([...codes.keys()].sort(), ['manifest-invalid', 'map-invalid']);
  } finally {
    rig.cleanup();
  }
});

test('a sample of malformed manifests and maps through the real CLI: exit 2 and a valid error envelope', async () => {
  const rig = new Rig();
  try {
    rig.write({ 'src/doc.html': '<p>doc</p>' });
    const generator = new Generator(seededRandom(7));
    for (let i = 0; i < 8; i += 1) {
      const kind: Kind = i % 2 === 0 ? 'manifest' : 'map';
      const text = generator.malformed(kind);
      rig.write({ [`case${i}.json`]: text });
      const args =
        kind === 'manifest' ? ['snapshot', '--manifest', `case${i}.json`, '--json'] : ['manual-ingest', '--map', `case${i}.json`, '--json'];
      const viaStdin = i % 4 === 3;
      if (viaStdin) args[2] = '-';
      const result = await rig.exec(args, viaStdin ? { input: text } : {});
      assert.equal(result.code, 2, `${args.join(' ')}: ${text.slice(0, 200)}\n${result.stdout}${result.stderr}`);
      assertNoStackTrace(result);
      assert.equal(result.json!.ok, false);
      assert.equal(result.json!.error!.code, kind === 'manifest' ? 'manifest-invalid' : 'map-invalid', result.json!.error!.message);
    }
  } finally {
    rig.cleanup();
  }
});
