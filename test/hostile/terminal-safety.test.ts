import { test } from 'node:test';
import assert from 'node:assert/strict';
import { escapeCodePoint, terminalSafe } from '../../src/cli/terminal-text.js';
import { Sandbox, assertBounded, assertFailure } from './harness.js';

/**
 * Captured text must not drive the terminal: human output shows control characters, ANSI escapes,
 * bidi overrides and isolates, zero-width and other invisible format characters escaped, and marks
 * snippets as untrusted; `--json` carries the exact text.
 */

/**
 * Code points that must never reach a terminal raw, listed by hand from the Unicode tables (not from
 * the implementation's pattern): C0, DEL, C1, soft hyphen, Arabic letter mark, Mongolian vowel
 * separator, zero-width space/non-joiner/joiner, LRM/RLM, line and paragraph separators, bidi
 * embeddings and overrides, word joiner and invisible operators, bidi isolates, deprecated format
 * controls, BOM, interlinear annotation controls, surrogates, language tag and tag characters.
 */
const MUST_ESCAPE: [number, number][] = [
  [0x00, 0x1f],
  [0x7f, 0x9f],
  [0xad, 0xad],
  [0x61c, 0x61c],
  [0x180e, 0x180e],
  [0x200b, 0x200f],
  [0x2028, 0x202e],
  [0x2060, 0x2064],
  [0x2066, 0x206f],
  [0xd800, 0xdfff],
  [0xfeff, 0xfeff],
  [0xfff9, 0xfffb],
  [0xe0001, 0xe0001],
  [0xe0020, 0xe007f],
];
/** Text that must pass unchanged: letters of several scripts (RTL letters included), marks, symbols, emoji. */
const MUST_KEEP = 'a Z 0 ~ é ß Ω Ж 中 日本 한 ע ب हि ก 𝒜 😀 e\u0301 \u00a0 \u3000 € ™ ✓ 🇫🇷';

const UNSAFE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/u;

function mustEscape(codePoint: number): boolean {
  return MUST_ESCAPE.some(([from, to]) => codePoint >= from && codePoint <= to);
}

/** Reverses the escapes (for the round-trip check): "\u202E" and "\u{E0001}" back to code points. */
function unescapeText(text: string): string {
  return text.replace(/\\u\{([0-9A-F]+)\}|\\u([0-9A-F]{4})/g, (_, astral: string | undefined, bmp: string | undefined) =>
    String.fromCodePoint(parseInt(astral ?? bmp!, 16)),
  );
}

test('every code point: the unsafe ones are escaped, the rest pass unchanged, and the escape round-trips', () => {
  let escaped = 0;
  for (let codePoint = 0; codePoint <= 0x10ffff; codePoint += 1) {
    // A lone surrogate is a one-unit string; everything else one code point.
    const text = String.fromCodePoint(codePoint);
    const shown = terminalSafe(text);
    if (mustEscape(codePoint)) assert.equal(shown, escapeCodePoint(codePoint), `U+${codePoint.toString(16)} must be escaped`);
    assert.ok(!UNSAFE.test(shown), `U+${codePoint.toString(16)} reached the output raw`);
    assert.ok(shown === text || shown === escapeCodePoint(codePoint), `U+${codePoint.toString(16)}: ${JSON.stringify(shown)}`);
    if (shown !== text) {
      escaped += 1;
      assert.equal(unescapeText(shown), text);
    }
  }
  // Cc (65) + Cf (~170) + Zl + Zp + Cs (2048): the count pins the classes, not the exact Unicode version.
  assert.ok(escaped > 2048 + 65 + 150 && escaped < 2048 + 65 + 250, `escaped ${escaped} code points`);
  assert.equal(terminalSafe(MUST_KEEP), MUST_KEEP);
});

test('escaping in context: ANSI and OSC sequences, bidi spoofing, newlines by mode, and linear time', () => {
  assert.equal(terminalSafe('\u001b[31mred\u001b[0m'), '\\u001B[31mred\\u001B[0m');
  assert.equal(terminalSafe('\u001b]8;;http://evil/\u0007link\u001b]8;;\u0007'), '\\u001B]8;;http://evil/\\u0007link\\u001B]8;;\\u0007');
  assert.equal(terminalSafe('invoice\u202Efdp.exe'), 'invoice\\u202Efdp.exe');
  assert.equal(terminalSafe('a\u{E0041}b'), 'a\\u{E0041}b');
  assert.equal(terminalSafe('one\ntwo\r\n'), 'one\\u000Atwo\\u000D\\u000A');
  assert.equal(terminalSafe('one\ntwo\r\n', { multiline: true }), 'one\ntwo\\u000D\n');
  assert.equal(terminalSafe('\ud800x\udc00'), '\\uD800x\\uDC00');
  // One pass over the text (a one-character class cannot backtrack): a megabyte of hostile
  // characters is escaped within a generous ceiling, even on a loaded machine.
  const hostile = '\u202E\u200B\u001b'.repeat(350_000);
  const started = performance.now();
  const shown = terminalSafe(hostile);
  assert.ok(performance.now() - started < 20_000);
  assert.equal(shown.length, hostile.length * 6);
});

/** Source text carrying every kind of hostile character, in a heading and in body text. */
const HOSTILE_HEADING = 'Head\u200Bing \u001b[31mred\u001b[0m \u202Eevil';
const HOSTILE_TEXT =
  'zebra payload \u202Egnp.exe \u2066iso\u2069 x \uFEFF y \u0085 z \u009B2J \u00AD w \u2028 ' +
  'line \u001b]8;;http://evil/\u0007link\u001b]8;;\u0007 \u007F del \u2060 wj \u{E0041} tag';
const RAW_FORBIDDEN =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters the test forbids
  /[\u0000-\u0009\u000B-\u001F\u007F-\u009F\u00AD\u200B-\u200F\u2028-\u202E\u2060-\u2064\u2066-\u206F\uFEFF]|\u{E0041}/u;

const hostileCharactersNeverRaw =
  'a source full of control, bidi and invisible characters: human output shows none raw and marks snippets untrusted; --json is exact';
test(hostileCharactersNeverRaw, async () => {
  const sandbox = new Sandbox();
  try {
    sandbox.write({
      'doc.html':
        `<!DOCTYPE html><html><head><title>T\u202Eitle</title></head><body>` +
        `<h1>${HOSTILE_HEADING}</h1><p>${HOSTILE_TEXT}</p></body></html>`,
      'map.json': JSON.stringify([{ sourceUrl: 'https://example.test/doc/', localPath: 'doc.html', contentType: 'text/html' }]),
      'episteme.json': JSON.stringify({ manualIngest: 'map.json' }),
    });
    const outside = sandbox.outside();
    const build = await sandbox.run(['build']);
    assert.equal(build.code, 0, build.stderr);
    assert.doesNotMatch(build.stdout + build.stderr, RAW_FORBIDDEN);

    const human = await sandbox.run(['query', '--index', 'chunks/search-index.json', '--term', 'zebra']);
    assert.equal(human.code, 0, human.stderr);
    assertBounded(human, { maxMs: 15_000, maxRssMb: 250 });
    assert.doesNotMatch(human.stdout + human.stderr, RAW_FORBIDDEN, 'no raw control, bidi or invisible character');
    assert.match(human.stdout, /untrusted source text/);
    const snippetLine = human.stdout.split('\n').find((line) => line.includes('zebra payload'))!;
    assert.match(
      snippetLine,
      new RegExp(
        String.raw`^ {3}\| zebra payload \\u202Egnp\.exe \\u2066iso\\u2069 x \\uFEFF y \\u0085 z \\u009B2J ` +
          String.raw`\\u00AD w \\u2028 line \\u001B\]8;;http:\/\/evil\/\\u0007link`,
      ),
    );
    assert.match(human.stdout, /Head\\u200Bing \\u001B\[31mred\\u001B\[0m \\u202Eevil/);

    const json = await sandbox.run(['query', '--index', 'chunks/search-index.json', '--term', 'zebra', '--json']);
    assert.equal(json.code, 0);
    const hit = (json.json!.data.hits as { snippet: { text: string }; citation: { headingPath: string[] } }[])[0]!;
    assert.ok(hit.snippet.text.includes(HOSTILE_TEXT), `--json carries the exact text: ${JSON.stringify(hit.snippet.text)}`);
    // The heading path starts with the document title (exact in --json too).
    assert.deepEqual(hit.citation.headingPath, ['T\u202Eitle', HOSTILE_HEADING]);
    assert.equal(json.json!.data.contentTrust, 'untrusted-source');
    assert.equal(sandbox.outside(), outside);
  } finally {
    sandbox.cleanup();
  }
});

test('error messages that quote input (a file name, a map entry) are escaped in human output and exact in --json', async () => {
  const sandbox = new Sandbox();
  try {
    const name = 'evil\u202Egnp.\u001b[2Jhtml';
    sandbox.write({ 'map.json': JSON.stringify([{ sourceUrl: 'https://example.test/doc/', localPath: name, contentType: 'text/html' }]) });
    const outside = sandbox.outside();
    const human = await sandbox.run(['manual-ingest', '--map', 'map.json']);
    assert.equal(human.code, 2);
    assert.doesNotMatch(human.stdout + human.stderr, RAW_FORBIDDEN);
    assert.match(human.stderr, /^error \[map-invalid\]: .*evil\\u202Egnp\.\\u001B\[2Jhtml does not exist/m);
    const json = await sandbox.run(['manual-ingest', '--map', 'map.json', '--json']);
    assertFailure(json, { code: 'map-invalid', exit: 2, maxMs: 15_000, maxRssMb: 250 });
    assert.ok(json.json!.error!.message.includes(name), 'the JSON message quotes the exact name');
    // A file name on the command line is quoted by the message too.
    const missing = await sandbox.run(['query', '--index', `no\u202Esuch\u0007.json`, '--term', 'a']);
    assert.equal(missing.code, 2);
    assert.doesNotMatch(missing.stdout + missing.stderr, RAW_FORBIDDEN);
    assert.match(missing.stderr, /no\\u202Esuch\\u0007\.json/);
    assert.equal(sandbox.outside(), outside);
  } finally {
    sandbox.cleanup();
  }
});
