import type { Block } from '../../src/document/types.js';
import { scriptText } from '../../src/extract/scripts.js';

/**
 * Cell agreement between the tables a source says it has and the table blocks extracted from its PDF:
 * cell by cell, at the same row and column, after collapsing whitespace. A fused cell (two values in
 * one string) or a split one both count as disagreements, in the expected and the extracted count.
 */

export interface Agreement {
  /** Cells equal at the same position. */
  matched: number;
  expected: number;
  extracted: number;
}

const clean = (s: string): string => s.replace(/\s+/g, ' ').trim();

/** All rows of a table block: its header row(s), then its rows. */
export function blockRows(block: Block): string[][] {
  return [...((block['header'] as string[][] | undefined) ?? []), ...((block['rows'] as string[][] | undefined) ?? [])];
}

export function agreement(expected: string[][], extracted: string[][]): Agreement {
  let matched = 0;
  expected.forEach((row, r) => {
    row.forEach((cell, c) => {
      if (clean(extracted[r]?.[c] ?? '\u0000') === clean(cell)) matched++;
    });
  });
  return { matched, expected: expected.flat().length, extracted: extracted.flat().length };
}

/** The extracted table that agrees best with `expected` (all-zero extraction when none does). */
export function bestAgreement(expected: string[][], blocks: Block[]): Agreement {
  let best: Agreement = { matched: 0, expected: expected.flat().length, extracted: 0 };
  for (const b of blocks.filter((x) => x.kind === 'table')) {
    const a = agreement(expected, blockRows(b));
    if (a.matched > best.matched || (a.matched === best.matched && best.extracted === 0)) best = a;
  }
  return best;
}

/** F1 over cells: 1 only when every cell matched and nothing extra came out. */
export function cellF1(a: Agreement): number {
  if (a.matched === 0) return 0;
  const precision = a.matched / a.extracted;
  const recall = a.matched / a.expected;
  return (2 * precision * recall) / (precision + recall);
}

/**
 * Cells of every `tabular` environment in a LaTeX source, as the PDF shows them: rows split at `\\`,
 * cells at `&`; rule commands dropped; `\textbf{x}`-style wrappers reduced to their text,
 * `\textsuperscript{2}` and `$^2$` to `^2` (subscripts `_2`), the form the extractors write; `\%`, `\&`,
 * `~` and `--` to what they print.
 */
export function texTables(tex: string): string[][][] {
  const tables: string[][][] = [];
  for (const m of tex.matchAll(/\\begin\{tabular\*?\}(?:\{[^}]*\})?\{((?:[^{}]|\{[^{}]*\})*)\}([\s\S]*?)\\end\{tabular\*?\}/g)) {
    const body = m[2]!.replace(/(^|[^\\])%.*$/gm, '$1');
    const rows: string[][] = [];
    for (const rawRow of body.split(/\\\\/)) {
      const row = rawRow.replace(/\\(?:toprule|midrule|bottomrule|hline|cline\{[^}]*\}|cmidrule(?:\([^)]*\))?\{[^}]*\})/g, '');
      if (row.trim() === '') continue;
      rows.push(row.split(/(?<!\\)&/).map((cell) => texText(cell)));
    }
    tables.push(rows);
  }
  return tables;
}

function texText(cell: string): string {
  let s = cell;
  for (let i = 0; i < 5; i++)
    s = s
      .replace(/\\textsuperscript\{([^{}]*)\}/g, (_, x: string) => scriptText('sup', x))
      .replace(/\\textsubscript\{([^{}]*)\}/g, (_, x: string) => scriptText('sub', x))
      .replace(/\\(?:textbf|textit|emph|mathrm|text|texttt|underline)\{([^{}]*)\}/g, '$1');
  s = s.replace(/\\multicolumn\{[^}]*\}\{[^}]*\}\{([^{}]*)\}/g, '$1');
  s = s
    .replace(/\$\^\{?([^$}]*)\}?\$/g, (_, x: string) => scriptText('sup', x))
    .replace(/\$_\{?([^$}]*)\}?\$/g, (_, x: string) => scriptText('sub', x))
    .replace(/\$([^$]*)\$/g, '$1');
  s = s
    .replace(/\\([%&$#_])/g, '$1')
    .replace(/~/g, ' ')
    .replace(/---/g, '\u2014')
    .replace(/--/g, '\u2013');
  return clean(s);
}
