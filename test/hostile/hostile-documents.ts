import { deflateRawSync, deflateSync, constants as zlibConstants } from 'node:zlib';

/**
 * Generators of hostile (and of ordinary) documents for the extraction-bounds tests and the fuzz run.
 * Everything is written here, byte by byte: no downloaded corpus, no stored bomb.
 */

/** `levels` nested elements around one word, closed by as many unmatched end tags. */
export function deepHtml(levels: number): string {
  const opened = '<div>'.repeat(levels);
  const unmatchedEnds = '</span>'.repeat(levels);
  return `<!DOCTYPE html><html><head><title>Deep</title></head><body>${opened}deep words${unmatchedEnds}</body></html>`;
}

export function deepXml(levels: number): string {
  return `<?xml version="1.0"?>${'<e>'.repeat(levels)}deep words${'</e>'.repeat(levels)}`;
}

/** Quadratic blowup: one large internal entity referenced many times (no nesting needed). */
export function quadraticEntityXml(valueChars: number, references: number): string {
  return `<?xml version="1.0"?><!DOCTYPE r [<!ENTITY big "${'x'.repeat(valueChars)}">]><r>${'&big;'.repeat(references)}</r>`;
}

/** The classic billion laughs: ten levels of ten references each. */
export function billionLaughsXml(): string {
  const decls = ['<!ENTITY lol "lol">'];
  for (let i = 1; i <= 9; i++) decls.push(`<!ENTITY lol${i} "${`&lol${i === 1 ? '' : i - 1};`.repeat(10)}">`);
  return `<?xml version="1.0"?><!DOCTYPE lolz [\n${decls.join('\n')}\n]><lolz>${'&lol9;'.repeat(10)}</lolz>`;
}

/** A PDF from object bodies (strings or byte arrays), with a correct xref table. */
export function pdfFromObjects(objects: (string | Uint8Array)[], info?: number): Uint8Array {
  const parts: Buffer[] = [Buffer.from('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n', 'latin1')];
  let length = parts[0]!.length;
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(length);
    const chunk = Buffer.concat([
      Buffer.from(`${i + 1} 0 obj\n`, 'latin1'),
      typeof body === 'string' ? Buffer.from(body, 'latin1') : Buffer.from(body),
      Buffer.from('\nendobj\n', 'latin1'),
    ]);
    parts.push(chunk);
    length += chunk.length;
  });
  const xref = length;
  let tail =
    `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n` + offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('');
  const infoEntry = info === undefined ? '' : ` /Info ${info} 0 R`;
  tail += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R${infoEntry} >>\nstartxref\n${xref}\n%%EOF\n`;
  parts.push(Buffer.from(tail, 'latin1'));
  return new Uint8Array(Buffer.concat(parts));
}

function streamObject(dictionary: string, data: Uint8Array): Uint8Array {
  return Buffer.concat([
    Buffer.from(`<< ${dictionary} /Length ${data.length} >>\nstream\n`, 'latin1'),
    Buffer.from(data),
    Buffer.from('\nendstream', 'latin1'),
  ]);
}

/** A text PDF: `pages` pages of `linesPerPage` lines, content streams Flate-compressed like real PDFs. */
export function textPdf(pages: number, linesPerPage = 20, word = 'evidence'): Uint8Array {
  const pageIds = Array.from({ length: pages }, (_, i) => 4 + i * 2);
  const objects: (string | Uint8Array)[] = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    `<< /Type /Pages /Kids [${pageIds.map((id) => `${id} 0 R`).join(' ')}] /Count ${pages} >>`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  for (let p = 0; p < pages; p++) {
    let content = 'BT /F1 11 Tf 14 TL 50 760 Td\n';
    for (let l = 0; l < linesPerPage; l++) content += `(Page ${p + 1} line ${l + 1} holds ${word} and more ${word}.) Tj T*\n`;
    content += 'ET';
    objects.push(
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents ${pageIds[p]! + 1} 0 R /Resources << /Font << /F1 3 0 R >> >> >>`,
    );
    objects.push(streamObject('/Filter /FlateDecode', deflateSync(Buffer.from(content, 'latin1'))));
  }
  return pdfFromObjects(objects);
}

/**
 * A Flate bomb: a one-page PDF whose content stream inflates to `inflatedMiB` MiB of spaces (valid
 * content: whitespace between operators) from about 1/1000 of that. Built from one compressed,
 * fully flushed MiB repeated, so generating a 4 GiB bomb costs one MiB of deflate.
 */
export function flateBombPdf(inflatedMiB: number): Uint8Array {
  const mib = Buffer.alloc(1024 * 1024, 0x20);
  const block = deflateRawSync(mib, { level: 9, finishFlush: zlibConstants.Z_FULL_FLUSH });
  const blocks: Buffer[] = [Buffer.from([0x78, 0xda])];
  for (let i = 0; i < inflatedMiB; i++) blocks.push(block);
  blocks.push(Buffer.from([0x03, 0x00])); // final empty fixed-Huffman block
  // Adler-32 of n bytes of 0x20: a = 1 + 32n, b = sum of a after each byte, both mod 65521.
  const n = BigInt(inflatedMiB) * 1048576n;
  const a = (1n + 32n * n) % 65521n;
  const b = (n + 32n * ((n * (n + 1n)) / 2n)) % 65521n;
  const adler = Buffer.alloc(4);
  adler.writeUInt32BE(Number((b << 16n) | a));
  blocks.push(adler);
  const data = Buffer.concat(blocks);
  return pdfFromObjects([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>',
    streamObject('/Filter /FlateDecode', data),
  ]);
}

/**
 * An operation bomb: a one-page PDF whose content stream shows one glyph `operations` times. It
 * inflates to 7 bytes per operation, under the inflated-bytes bound (Flate compresses it 700-fold), so
 * only the time bound can stop it.
 */
export function operatorBombPdf(operations: number): Uint8Array {
  const content = Buffer.from('BT /F1 1 Tf ' + '(a) Tj\n'.repeat(operations) + 'ET', 'latin1');
  return pdfFromObjects([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    streamObject('/Filter /FlateDecode', deflateSync(content, { level: 9 })),
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ]);
}

/** An ordinary HTML page: headings, paragraphs, a list and a table. */
export function ordinaryHtml(title: string): string {
  return `<!DOCTYPE html><html><head><title>${title}</title></head><body>
<h1>${title}</h1>
<h2 id="intro">Introduction</h2><p>The ordinary document about ${title} MUST remain searchable.</p>
<ol><li>First step</li><li>Second step</li></ol>
<table><tr><th>Name</th><th>Value</th></tr><tr><td>alpha</td><td>1</td></tr></table>
</body></html>
`;
}

/**
 * Every kind of HTML container, nested `levels` deep with a word at each level and "deep words" at the
 * bottom, end tags omitted (the parser closes them): the constructs whose output grew with their
 * nesting (a list line's indentation, a step's path, a section's ancestry). The ecmarkup ones
 * (`emu-`, ecmarkdown) are read as such under a tc39 URL (nestedHtmlUrl).
 */
export const NESTED_HTML: Readonly<Record<string, (levels: number) => string>> = {
  'ordered lists': (n) => nestedBody('<ol><li>x', n),
  'unordered lists': (n) => nestedBody('<ul><li>x', n),
  'definition lists': (n) => nestedBody('<dl><dt>t<dd>x', n),
  tables: (n) => nestedBody('<table><tr><td>x', n),
  blockquotes: (n) => nestedBody('<blockquote>x', n),
  'sections with headings': (n) => nestedBody('<section><h2>h</h2>x', n),
  'clauses (emu-clause)': (n) => nestedBody('<emu-clause><h1>h</h1>x', n),
  'notes (aside)': (n) => nestedBody('<aside class="note">x', n),
  superscripts: (n) => nestedBody('<sup>x', n),
  // Each link's text was its whole subtree: nested links copied the rest of the page each (<a> closes an open <a>).
  'links (in <b>)': (n) => nestedBody('<b><a href="#x">x', n),
  'cross-references (emu-xref)': (n) => nestedBody('<emu-xref href="#x">x', n),
  'algorithm steps (emu-alg)': (n) => `<!DOCTYPE html><html><body><emu-alg>${'<ol><li>x'.repeat(n)}deep words</emu-alg></body></html>`,
  'algorithm steps (ecmarkdown source)': (n) => `<!DOCTYPE html><html><body>${ecmarkdownSource(n, 40)}</body></html>`,
};

export function nestedHtmlUrl(kind: string): string {
  return /emu-|ecmarkdown/.test(kind) ? 'https://tc39.es/ecma262/' : 'https://example.org/';
}

function nestedBody(open: string, levels: number): string {
  return `<!DOCTYPE html><html><head><title>Nested</title></head><body>${open.repeat(levels)}deep words</body></html>`;
}

/**
 * An `<emu-alg>` of ecmarkdown source with `steps` steps, each indented one level deeper than the one
 * before, back to the left margin every `depth` steps (so the bytes grow linearly with the steps).
 */
export function ecmarkdownSource(steps: number, depth: number): string {
  const lines: string[] = [];
  for (let i = 0; i < steps; i++) lines.push(`${'  '.repeat(i % depth)}1. Let _x${i}_ be ${i}.`);
  return `<emu-alg>\n${lines.join('\n')}\n  1. Return deep words.\n</emu-alg>`;
}

/** RFC XML with `levels` nested sections, each with a name and a paragraph. */
export function deepRfcXmlSections(levels: number): string {
  const open = '<section><name>s</name><t>x</t>'.repeat(levels);
  const close = '</section>'.repeat(levels);
  return `<?xml version="1.0"?><rfc version="3"><front><title>Deep</title></front><middle>${open}<t>deep words</t>${close}</middle></rfc>`;
}

/** One page of text; objects 1-4: catalog (with `catalogExtra`), pages, page (with `pageExtra`), content. */
function onePage(catalogExtra: string, pageExtra = ''): string[] {
  const content = 'BT /F1 12 Tf 72 720 Td (Hello evidence text) Tj ET';
  return [
    `<< /Type /Catalog /Pages 2 0 R ${catalogExtra} >>`,
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R ' +
      `/Resources << /Font << /F1 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> >> >> ${pageExtra} >>`,
    `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
  ];
}

/** A one-page PDF whose outline nests `levels` deep: each entry the only child of the one before (objects 6..). */
export function deepOutlinePdf(levels: number): Uint8Array {
  const objects: string[] = [...onePage('/Outlines 5 0 R'), `<< /Type /Outlines /First 6 0 R /Last 6 0 R /Count ${levels} >>`];
  for (let i = 0; i < levels; i++) {
    const n = 6 + i;
    const child = i + 1 < levels ? `/First ${n + 1} 0 R /Last ${n + 1} 0 R /Count 1 ` : '';
    objects.push(`<< /Title (Entry ${i}) /Parent ${i === 0 ? 5 : n - 1} 0 R ${child}/Dest [0 /Fit] >>`);
  }
  return pdfFromObjects(objects);
}

/** A one-page PDF with one text field under a chain of `levels` parent fields (objects 5..). */
export function deepFieldPdf(levels: number): Uint8Array {
  const widget = 5 + levels;
  const objects: string[] = onePage('/AcroForm << /Fields [5 0 R] >>', `/Annots [${widget} 0 R]`);
  for (let i = 0; i < levels; i++) {
    const n = 5 + i;
    objects.push(`<< /T (f${i}) ${i === 0 ? '' : `/Parent ${n - 1} 0 R `}/Kids [${n + 1} 0 R] >>`);
  }
  objects.push(`<< /Type /Annot /Subtype /Widget /FT /Tx /Parent ${widget - 1} 0 R /Rect [72 600 300 620] /V (value) /P 3 0 R >>`);
  return pdfFromObjects(objects);
}
