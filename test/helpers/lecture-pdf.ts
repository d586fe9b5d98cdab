import { wrap } from './real-layouts.js';
import { tablePdf, textWidth, type PageSpec, type TextSpec } from './table-pdf.js';

/**
 * Lecture notes as LaTeX sets them, untagged and without an outline: a title, numbered sections
 * (14 pt bold) and subsections (12 pt bold, only 1.2 times the 10 pt body), a running head and a page
 * number on every page after the first, a subsection heading at the foot of a page whose definition
 * starts the next page, and a last page in two columns with a subsection heading at the top of the
 * right column. `expected` gives, for a phrase of every paragraph, the heading it must be filed under.
 */
export interface LectureCase {
  pdf: Uint8Array;
  headings: string[];
  /** [phrase in a paragraph, heading of the section that paragraph must be in]. */
  expected: [string, string][];
}

const BODY = 10;
const LEADING = 13;
const LEFT = 72;
const WIDTH = 468;

export function lectureCase(): LectureCase {
  const pages: TextSpec[][] = [[], [], [], []];
  const expected: [string, string][] = [];
  const headings: string[] = [];
  let page = 0;
  let y = 72;
  const heading = (text: string, size: number): void => {
    y += 8;
    pages[page]!.push({ x: LEFT, top: y, size, text, bold: true });
    headings.push(text);
    y += size + 8;
  };
  const paragraph = (text: string, under: string, x = LEFT, width = WIDTH): void => {
    for (const line of wrap(text, width, BODY)) {
      pages[page]!.push({ x, top: y, size: BODY, text: line });
      y += LEADING;
    }
    y += 6;
    expected.push([text.slice(0, 40), under]);
  };
  const newPage = (): void => {
    page++;
    y = 72;
  };

  pages[0]!.push({ x: LEFT, top: 60, size: 17, text: 'Lecture 4: Sorting and Searching', bold: true });
  pages[0]!.push({ x: LEFT, top: 84, size: BODY, text: 'Scribe notes, CS 161, spring term' });
  y = 110;
  heading('1 Sorting', 14);
  paragraph(
    'Sorting puts the elements of a sequence in order. We study comparison sorts first, then sorts that look at the keys themselves.',
    '1 Sorting',
  );
  heading('1.1 Insertion sort', 12);
  paragraph(
    'Insertion sort grows a sorted prefix one element at a time, moving each new element left past the larger ones before it.',
    '1.1 Insertion sort',
  );
  paragraph('Its worst case takes quadratic time, on a sequence given in reverse order.', '1.1 Insertion sort');
  heading('1.2 Merge sort', 12);
  paragraph(
    'Merge sort splits the sequence in halves, sorts each half recursively and merges the two sorted halves in linear time.',
    '1.2 Merge sort',
  );
  heading('1.3 Lower bound', 12);
  for (let i = 0; i < 12; i++)
    paragraph(
      `Observation ${i + 1}: a comparison sort is a decision tree whose leaves are the orderings of its input, ` +
        'so its height is at least the logarithm of their number.',
      '1.3 Lower bound',
    );
  newPage();
  heading('1.4 Counting sort', 12);
  for (let i = 0; i < 19; i++)
    paragraph(
      `Remark ${i + 1}: counting sort tallies how often each key occurs ` +
        "and places every element at the position its key's running total gives.",
      '1.4 Counting sort',
    );
  // The heading of 1.5 sits at the foot of the page; its definition starts the next one.
  heading('1.5 Stability', 12);
  newPage();
  paragraph(
    'Definition 1.6 (Stable sort). A sorting algorithm is stable if elements with equal keys keep the order they had in its input.',
    '1.5 Stability',
  );
  paragraph('Insertion sort and merge sort are stable; the usual in-place quicksort is not.', '1.5 Stability');
  heading('1.6 Radix sort', 12);
  paragraph(
    'Radix sort sorts by the least significant digit first, with a stable sort for each digit, so that earlier passes are kept.',
    '1.6 Radix sort',
  );
  newPage();
  // Two columns: the left one ends 1.6, the right one opens 1.7 at its top.
  const columnWidth = 216;
  const right = LEFT + columnWidth + 36;
  const leftTexts = [
    'Example 1.7. Sorting three-digit numbers takes three passes of counting sort over ten possible digits each.',
    'Each pass costs time linear in the number of elements plus the number of digit values, so the whole sort is linear for fixed width.',
    'Radix sort beats comparison sorts when keys are short, and loses when keys are long compared with the logarithm of the input size.',
  ];
  for (const text of leftTexts) paragraph(text, '1.6 Radix sort', LEFT, columnWidth);
  y = 72;
  y += 8;
  pages[page]!.push({ x: right, top: y, size: 12, text: '1.7 Searching', bold: true });
  headings.push('1.7 Searching');
  y += 20;
  const rightTexts = [
    'Binary search finds a key in a sorted array by halving the range that may hold it, in logarithmic time.',
    'Interpolation search guesses the position from the key value and takes doubly logarithmic time on uniform keys.',
    'Exponential search doubles a bound until it passes the key, then searches the last range, for unbounded inputs.',
  ];
  for (const text of rightTexts) paragraph(text, '1.7 Searching', right, columnWidth);

  // Running heads (the lecture's title and number) and page numbers on pages 2 to 4.
  for (const texts of pages)
    for (const t of texts) if (t.top > 730) throw new Error(`lecture fixture: "${t.text}" runs into the page's foot`);
  const specs: PageSpec[] = pages.map((texts, i) => {
    const furniture: TextSpec[] =
      i === 0
        ? []
        : [
            { x: LEFT, top: 36, size: 9, text: 'CS 161: Design and Analysis of Algorithms' },
            { x: LEFT + WIDTH - textWidth('Lecture 4', 9), top: 36, size: 9, text: 'Lecture 4' },
          ];
    return { texts: [...furniture, ...texts, { x: 302, top: 750, size: BODY, text: String(i + 1) }] };
  });
  return { pdf: tablePdf(specs), headings, expected };
}
