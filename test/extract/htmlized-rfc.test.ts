import { test } from 'node:test';
import assert from 'node:assert/strict';
import { extractBytes } from './helpers.js';

/**
 * An htmlized RFC (rfc2html: tools.ietf.org/html, datatracker's /doc/html/ for RFCs before v3,
 * rfc-editor.org's .html of them) is the RFC's text in <pre> pages with its headings marked. It reads
 * as the same RFC's plain text does (sections, numbers, blocks), with the page's own anchors as the
 * sections' fragments and every span pointing into the HTML where its text is written.
 */
const TEXT_PAGES = [
  `RFC 9997                     Htmlized Test                   April 2026


                         Htmlized Test Protocol

Abstract

   This document tests reading an htmlized RFC & its pages.

1.  Introduction

   A client MUST send <hello> before any other message.  The server
   answers as Section 2 says.

`,
  `RFC 9997                     Htmlized Test                   April 2026


2.  Messages

   Each message is one line.

2.1.  Hello

   The hello message carries the version.

Appendix A.  Acknowledgments

   Thanks to the readers.
`,
];

function htmlized(): string {
  const mark = (page: string): string =>
    page
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      .replace(/^(\d+(?:\.\d+)*)\.( +)(\S.*)$/gm, (_m, n: string, gap: string, title: string) => {
        const level = Math.min(n.split('.').length + 1, 6);
        return `<span class="h${level}"><a class="selflink" id="section-${n}" href="#section-${n}">${n}</a>.${gap}${title}</span>`;
      })
      .replace(
        /^Appendix A\.( +)(\S.*)$/m,
        '<span class="h2"><a class="selflink" id="appendix-A" href="#appendix-A">Appendix A</a>.$1$2</span>',
      )
      .replace('Section 2', '<a href="#section-2">Section 2</a>');
  return (
    '<!DOCTYPE html><html><head><title>RFC 9997</title></head><body><div class="rfcmarkup"><pre>' +
    mark(TEXT_PAGES[0]!) +
    `<span class="grey">Doe                          Informational                     [Page 1]</span></pre>\n` +
    "<hr class='noprint'/><!--NewPage--><pre class='newpage'>" +
    mark(TEXT_PAGES[1]!) +
    '</pre></div></body></html>\n'
  );
}

test('an htmlized RFC reads as its text, cited at its anchors, with spans into the HTML', async () => {
  const source = htmlized();
  const html = await extractBytes(source, 'https://datatracker.ietf.org/doc/html/rfc9997', 'text/html');
  const text = await extractBytes(
    `${TEXT_PAGES[0]}Doe                          Informational                     [Page 1]\n\f${TEXT_PAGES[1]}`,
    'https://www.rfc-editor.org/rfc/rfc9997.txt',
    'text/plain',
  );
  assert.deepEqual(
    html.sections.map((s) => [s.number, s.heading, s.level, s.id]),
    text.sections.map((s) => [s.number, s.heading, s.level, s.id]),
  );
  assert.deepEqual(
    html.sections.map((s) => s.fragment),
    [null, 'section-1', 'section-2', 'section-2.1', 'appendix-A'],
    'the page anchors its numbered sections',
  );
  assert.deepEqual(
    html.blocks.map((b) => [b.kind, b.text, b.sectionId]),
    text.blocks.map((b) => [b.kind, b.text, b.sectionId]),
  );
  assert.equal(html.title, 'Htmlized Test Protocol');
  assert.ok(!html.diagnostics.some((d) => d.code === 'no-headings'));
  for (const block of html.blocks) {
    assert.equal(block.fragment, html.sections.find((s) => s.id === block.sectionId)!.fragment ?? null, block.text);
    const span = block.span as { start: number; end: number; page?: number };
    const written = source.slice(span.start, span.end);
    const firstWord = block.text.split(/\s+/)[0]!;
    assert.ok(written.includes(firstWord.replace('&', '&amp;').replace('<', '&lt;')), `${JSON.stringify(written)} holds ${firstWord}`);
  }
  const introduction = html.blocks.find((b) => b.text.startsWith('A client MUST'))!;
  assert.match(introduction.text, /send <hello> before/);
  const introSpan = introduction.span as { start: number; end: number; line: number; page: number };
  assert.ok(source.slice(introSpan.start, introSpan.end).includes('&lt;hello&gt;'), 'the span covers the escaped text');
  assert.equal(introSpan.page, 1);
  assert.equal(introSpan.line, source.slice(0, introSpan.start).split('\n').length, 'the line is the HTML source line');
  const hello = html.blocks.find((b) => b.text.startsWith('The hello message'))!;
  assert.equal((hello.span as { page: number }).page, 2);
});

test('HTML with <pre> blocks but no heading spans is read as HTML', async () => {
  const doc = await extractBytes(
    '<!DOCTYPE html><html><body><h1>Notes</h1><pre>1.  Not a heading\n\n   code</pre><p>Text.</p></body></html>',
    'https://example.test/notes',
    'text/html',
  );
  assert.deepEqual(
    doc.blocks.map((b) => b.kind),
    ['code', 'paragraph'],
  );
});
