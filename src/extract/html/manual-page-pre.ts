import type { AnyNode, Element } from 'domhandler';
import { textContent } from 'domutils';
import { looksLikeManText } from '../text/man-text.js';
import { collectPres, type PreText, preText } from './pre-text.js';

/**
 * A manual page formatted for a terminal and put in a web page's `<pre>`, its bold and italics and its
 * cross-references marked up inside it, as Postfix's man pages, man.cgi pages and `man2html -p`-style
 * converters publish them. Read by the HTML rules the whole page is one code block with no section;
 * it is the formatted page, so the manual-page text reader reads it (text/man-text.ts), each offset
 * mapped back to the HTML. The `<pre>` must hold most of the page's text: a manual page quoted in
 * a page about something else stays an example.
 */
export function manualPageInPre(document: AnyNode, source: string): PreText | null {
  const pres: Element[] = [];
  collectPres(document, pres);
  for (const pre of pres) {
    const text = textContent(pre);
    if (!looksLikeManText(text)) continue;
    return text.length * 2 >= textContent(document).length ? preText([pre], source) : null;
  }
  return null;
}
