import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { extractBytes, fixturesDir } from './helpers.js';

/**
 * RFC plain text prints a figure as its artwork and a centred caption ("Figure 1: Message Flow").
 * Artwork holds blank lines, lines at column 0 and legend lines that read like list items, so the
 * figure is read back from its caption: one block from the last prose paragraph to the caption,
 * captioned as the HTML and XML renderings caption it (rfc-figures.ts). The fixture follows the
 * layouts of RFC 8446 Figure 1 (tlswg/tls13-rfc rfc8446.txt) and RFC 6787's message and table figures.
 */

const fixture = new Uint8Array(readFileSync(path.join(fixturesDir, '..', 'rfc-text', 'figures.txt')));

test('RFC text: a figure with blank lines, column-0 art and a legend is one artwork block with its caption', async () => {
  const doc = await extractBytes(fixture, 'https://www.rfc-editor.org/rfc/rfc9987.txt', 'text/plain');
  const captioned = doc.blocks.filter((b) => b.caption !== undefined).map((b) => [b.kind, b.caption]);
  assert.deepEqual(captioned, [
    ['artwork', 'Figure 1: Message Flow of an Exchange'],
    ['artwork', 'Figure 2: Widget List Request'],
    ['artwork', 'Table 1: Widget Codes'],
    ['grammar', 'Figure 3: Widget Fields'],
  ]);
  const flow = doc.blocks.find((b) => b.caption === 'Figure 1: Message Flow of an Exchange')!;
  const lines = flow.text.split('\n');
  assert.equal(lines[0], '       Client                                        Server');
  assert.equal(lines[1], '');
  assert.equal(lines[2], 'Hello ^ WidgetHello');
  assert.ok(lines.includes('              *  Indicates optional fields that are'));
  assert.equal(lines[lines.length - 1], '                 not always sent.');
  // No part of a figure is left as a block of its own, nor any caption.
  assert.equal(
    doc.blocks.some((b) => b.kind === 'list' || /^(Figure|Table) \d/.test(b.text) || b.text.startsWith('https://')),
    false,
  );
  // The lead-ins stay paragraphs; the rules before the table stay grammar, apart from it.
  const texts = doc.blocks.map((b) => [b.kind, b.text.split('\n')[0]]);
  assert.deepEqual(
    texts.filter(([kind]) => kind === 'paragraph').map(([, text]) => text),
    [
      'This document shows figures as xml2rfc prints them in plain text.',
      'A widget exchange runs as follows, in three phases (the figure below shows all of them):',
      'The exchange ends when both sides have sent their payload.',
      'A request for the widget list carries its target:',
      'Target: the widget list the request names, written in the header fields and the lines below them, one URL a line.',
      'The code field is defined as follows:',
      "Widget-Size: the size of the widget in millimetres, counted from one edge to the other, as the widget's maker measured it.",
      'Alex Author Example Inc.',
    ],
  );
  assert.deepEqual(
    texts.find(([, text]) => text!.startsWith('widget-code')),
    ['grammar', 'widget-code   =   "Widget-Code" ":" 3DIGIT SP'],
  );
  const list = doc.blocks.find((b) => b.caption === 'Figure 2: Widget List Request')!;
  const urls = ['one', 'two', 'three'].map((n) => `https://widgets.example/list/${n}`);
  assert.equal(list.text, ['Content-Type:text/uri-list', 'Content-Length:...', '', ...urls].join('\n'));
});
