/**
 * Every version number that changes output bytes for the same input, in one place. Each goes into the
 * keys of the targets it shapes; bump it when the code changes what it produces. Kept free of imports
 * so the no-op fast path can check them without loading any stage.
 */
/**
 * 2: HTML blocks record the ids of elements inside them (anchors). 3: RFC renderings agree (xref
 * labels, front matter as metadata, captions on their blocks, references, asides, XML ids as in the
 * source); unicode, ietf-draft and tc39 families; HTML table insertion modes and cell spans,
 * algorithm steps with paths, section normativity from the section's markup. 4: RFC XML written for
 * rfc2629.xslt reads as that renderer prints it (x:length-of, x:fmt defaults, citation dates, DOIs,
 * sorted references, x:source limits), list-item counters, foreign vocabularies skipped; httpwg
 * `pre.inline` is grammar. 5: HTML trees close an open `<p>` at a block start tag whenever it is in
 * button scope (the standard's "close a p element"), not only when it is the current node. 6: bytes
 * invalid in their encoding (replaced by U+FFFD) are a warning diagnostic, invalid-bytes;
 * superscripts and subscripts as `^53` / `_(i+1)` (HTML, RFC XML); `<emu-alg>` ecmarkdown source read
 * as steps; RFC text titled from its first page's title lines (a draft's name line dropped), else
 * "RFC <n>"; sections, lists and steps nested past MAX_OUTLINE_DEPTH kept at that depth. 7: an HTML heading
 * inside a sectioning root (figure, blockquote, details, dialog, fieldset, a table cell) is a
 * paragraph of that content, not a heading of the document's outline.
 * 8: text holding NUL characters (UTF-16 read without its byte order mark, binary data) carries
 * the warning nul-characters. 9: bytes read as HTML, text or XML that start with a binary format's
 * signature (a PDF, an image, an archive: src/extract/signatures.ts) carry the warning
 * content-type-mismatch. 10: an informative section records why (normativityReason), so the chunker
 * knows the sections of the document's apparatus. 11: an `<a name>` inside a block (a rule's row in a
 * Unicode report's rule table, an older spec's inline anchor) is one of the block's anchors, as an
 * element's `id` was: a citation can point there. 12: a block of a section without an id takes the
 * fragment of the nearest enclosing section that has one (it took null), as Block.fragment says.
 * 13: plain text lines end at LF, CRLF or a lone CR (a CR-only file had no lines), and a title read
 * from a text's lines is cut at 256 code units; an HTML `<title>` outside `<head>` is no block; an
 * HTML link's text is cut at 512 code units (MAX_LINK_TEXT); a document's own charset declaration is
 * read by the WHATWG prescan (no `<meta>` in comments, UTF-16 as UTF-8; XML and XHTML by their declaration);
 * XML that is not well-formed carries the warning xml-malformed, and a second root element is read.
 * 14: an RFC XML `<eref>`'s link text is cut at 512 code units as an HTML link's is; an element holding
 * more than 64 code units of text marks no keyword (it never named one; it is no longer read whole).
 * 15: made-up section ids (`~s<n>`, `<fragment>~<n>`, an RFC text's `section-<n>`) never take an id the
 * source uses anywhere in the document, found once every id is known (document-builder.ts settleIds);
 * block ids follow their section's final id. Documents without such a collision are unchanged.
 * 16: a heading marker ("(informative)", "(non-normative)") makes its section informative in every
 * extractor and in the rfc, ietf-draft and unicode families too (RFC 6265's "Semantics
 * (Non-Normative)" was normative in its HTML and XML renderings).
 * 17: a ReSpec source (ReSpec loaded in its head) gives each section's first heading the level of its
 * section nesting, as ReSpec renders it (html/respec-source.ts); other documents are unchanged.
 * 18: an RFC XML's reference lists beside one another in `<back>` (v2: normative, informative) are the
 * subsections N.1, N.2 of one "References" section N, as the renderings print them (they were N, N+1).
 * 19: a ReSpec source's abstract, status and conformance sections have the headings ReSpec writes.
 * 20: RFC XML v3 references included by XInclude (`<xi:include href=".../reference.RFC.2119.xml"/>`)
 * are listed and cited as "[RFC2119]" as `<?rfc include?>` ones are; any XInclude is declared unread;
 * a v2 `numbered="no"` section is unnumbered as a v3 `numbered="false"` one; an RFC text figure or
 * table (artwork up to its "Figure 3: title" caption line) is one block with that caption; an
 * Internet-Draft's front notes (XML `<front><note>`, RFC text sections before section 1) are informative;
 * an HTML list holding a heading (outside a sectioning root) is walked as a container, so the heading
 * opens its section.
 * 21 (family rules, no extractor code): ReSpec's "WebIDL" permalink (`span.idlHeader`) is no longer
 * the start of every IDL block (w3c, whatwg, generic); the HTML Standard's `<pre><code class="idl">`
 * is an IDL block, and its MDN (`aside.mdn`) and caniuse (`div.status`) boxes and multipage
 * previous/next `<nav>` are not text (whatwg); an ecmarkup clause tag (`div.attributes-tag`,
 * "Normative Optional", "Legacy") is no longer a block of the clause before it (tc39); drafts on W3C
 * groups' github.io hosts (wicg, gpuweb, webmachinelearning, ...) are read with the w3c family; an RFC's
 * page on datatracker (`/doc/html/rfc6265`) is read with the rfc family, not as an Internet-Draft.
 * 22: an htmlized RFC (rfc2html's <pre> pages with heading spans: tools.ietf.org/html, datatracker
 * /doc/html/ before v3, rfc-editor.org's .html of older RFCs) is read as the RFC's text, each offset
 * mapped back to the HTML, its sections cited at the page's anchors (html/htmlized-rfc.ts).
 * 23: Markdown (text/markdown, or plain text at a `.md`/`.markdown` path) is read by the markdown
 * extractor (sections at GitHub's heading ids, lists, tables, code, alerts); it was one paragraph per
 * line group of plain text.
 * 24: a document whose URL no family names takes the family of the tool its bytes declare (generator
 * meta, ReSpec, Bikeshed, ecmarkup and RFC markup: extract/declared-generator.ts; rules' match.generators).
 * 25: a source id longer than 256 code units (MAX_SOURCE_ID_LENGTH) is read as no id, warning
 * id-too-long: its section takes a made-up id and its blocks cite the enclosing section. Documents
 * without such an id are unchanged.
 * 26: the text HTML table cells copy into the slots they span is bounded per document
 * (TABLE_SPAN_COPY_BOUNDS); past it a cell takes one slot, warning table-spans-capped. Documents
 * within the bound are unchanged.
 * 27: Markdown sweep: front matter ends at kramdown-rfc's part marker and may be TOML (+++, mmark's
 * %%%); kramdown and mmark markup, definition lists, cross-references and section numbers; GitHub
 * footnotes; ids in raw HTML are citable; raw inline HTML no longer splits words.
 * 28: a document on a host the URL gives to the rfc or ietf-draft family that declares the other's
 * document type (a draft name on httpwg.org, an RFC number in the drafts archive) is read with that
 * family (families.ts siblingFamilies): Internet-Drafts were typed "rfc".
 * 29: plain Markdown on a standards family's host (an explainer, a README) is an informative
 * document unless its front matter declares a tool the family reads: it was a normative specification.
 * 30: documentation generators sweep: docbook, asciidoc and texinfo families (navigation bars, tables of
 * contents and footers are chrome; section divs name their headings; admonitions are notes; DocBook
 * table titles are captions); in any HTML, empty anchors name the heading or block after them, an
 * aside titled by its one heading is one block, a block cites the section heading nearer than its
 * enclosing element's id, and a one-row layout table is read as its one filled cell.
 * 31: documentation generators' HTML (Sphinx, rustdoc, mdBook, javadoc): headings inside <details>
 * open sections; a section whose element wraps its heading alone runs on to the next heading (the
 * block cites it, not the element around all of them); a heading without an id takes the enclosing
 * id its permalink names; permalink glyphs ("¶") are not text; a lone letter without a dot is no
 * section number; code language from <code> or Pygments' wrapper; the rustdoc family (chosen by its
 * generator) prunes rustdoc's chrome; the javadoc family reads javadoc's CSS-grid summaries as tables
 * (gridTableSelectors) and prunes its breadcrumbs.
 * 32: API entries written as definition lists (entrySelectors; generic: Sphinx's `dt.sig-object[id]`)
 * are subsections of the section around them, headed by the name their signature declares, the
 * signature their first block; an `<a name>` with no text opens a passage that the blocks after it
 * (up to the next one or the next heading) cite, as SQLite's pages mark each entry.
 * 33: Doxygen, GTK-Doc, pod2html, groff -Thtml and pandoc HTML: doxygen, groff and pod2html families (pod2html
 * chosen by its markup) prune their chrome; Doxygen's div.fragment is code (codeSelectors); pod2html's =item
 * lists are read entry by entry (entryListSelectors); a layout table of term and definition rows with empty
 * spacer cells (groff's tagged paragraphs) is a definition list; a cell the family prunes is empty to a layout
 * table (GTK-Doc's line numbers); pandoc's `pre.sourceCode LANG` names the code's language.
 * 34: Haddock, Erlang/OTP, Node.js, Go and Lua pages: a root selector that matches elements side by side
 * (erl_docgen's one `<article>` per function) names no root, the next one is tried (the page was read as its
 * first function); haddock, erlang and nodejs families (chosen by their markup) prune their chrome; an element
 * holding one API entry (entryBlockSelectors: Haddock's div.top, erl_docgen's article.func, whose other arities'
 * headings are alternate ids) is a subsection named by its signature's id;
 * a label heading (labelHeadingSelectors: erl_docgen's "Types") is a paragraph of its entry; a heading is named
 * by a self-link wrapped around it (Haddock's `<a id="g:1"><h1>`) and drops a "#" glyph that carries its own
 * id (Node.js); a dash after a printed section number is no part of the heading ("2.1 – Values and Types");
 * a page source without `<title>` is titled by its opening JSON comment's Title (the Go website's pages).
 * 35: DocBook variable-list entries with an id (`dl.variablelist > dt[id]`, or a `<dt>` that opens with its
 * `<a name>` anchor: Wayland's client API, PostgreSQL's parameters) are API entries, each a subsection.
 * 36: plain text that is no RFC has headings where it marks them: underlined lines (setext) and a numbered
 * outline at column 0 (the xz format's specification), each a section (`section-N` when numbered).
 * 37: a root selector's match that holds one API entry (entryBlockSelectors) names no root: an erl_docgen
 * module page of one function (one `article.func`) was read as that function alone.
 * 38: RDoc (Ruby's API pages, Darkfish): a family chosen by its markup; each method (div.method-detail) is an
 *     API entry at its own id, headed by the name its call sequence declares (`chomp!` keeps its `!`); a
 *     back-to-top arrow (`<a href="#top">↑</a>`) is chrome as a permalink glyph is.
 * 39: Vim help files are read by their markup: chapters after `===` rules, each `*tag*` line an entry at its
 *     tag (they were one run of paragraphs without a section); Sphinx's `[source]` (viewcode) links and mdBook's
 *     hidden example lines are not text; a DocBook `<dt>` opening with `<a id>` is an entry; an element holding
 *     only headings of one tag with ids (qdoc's `div.fngroup`) is one section, the others alternate ids;
 *     anchors alone in a paragraph (mdBook's `<p><a id>`) name the next heading.
 * 40: in plain text, a subsection's number (`2.1` and deeper) indented up to four spaces opens a section in the
 *     numbered outline (curl's FAQ: "  5.1 Is libcurl thread-safe?").
 * 41: a page that declares itself XHTML (its DOCTYPE or the XHTML namespace on `<html>`) reads `<tag/>` as an
 *     empty element: ImageMagick's `<iframe .../>` held the rest of its pages, which had no text.
 * 42: the ids inside a heading that has an id of its own are its alternate ids too (Apache's manual:
 *     `<h2 id="rewritebase"><span id="RewriteBase">`); the id of a titled aside's heading opens a passage,
 *     as an empty anchor does (the blocks after Apache's `<h3><a id="what_is_matched">` note cite it).
 * 43: empty anchors after a block's last text name what follows (man2html's and roffit's heading anchors); a
 *     link's id (an icon link) names no heading; a mediawiki family (its chrome); yard, typedoc and jsdoc
 *     families chosen by their footers (chrome; JSDoc's div#main root); nestedHeadingSelectors (TypeDoc's member
 *     descriptions nest their headings); in Markdown, a line of Hugo shortcode tags alone is markup.
 * 44: the passage a titled aside's heading opens is named by the heading's own id (else its self-link's), not by
 *     the last id written inside it (`<h3 id="new"><span id="old">` named the blocks after it #old).
 * 45: a Texinfo definition-list term that carries an index entry (`@vtable`, `@ftable`, `@deffn`: texi2any's
 *     `<dt id="index-HISTCONTROL">`, Texinfo 7's `<dt><a id="index-...">`, makeinfo's `<a name>`) is an API
 *     entry, a subsection headed by its name; HeVeA's `hevea_defaultN` index anchors are generated ids.
 * 46: steps introduced by a paragraph that defines them ("To <dfn id=x>x</dfn> given y, run these steps:")
 *     cite the definition's id when they have none of their own, not the section's.
 * 47: text and inline elements written directly in a definition list of API entries (between its terms, or left there
 *     by the tree depth cap: 300 nested Texinfo `dl > dd` entries) are paragraphs, not dropped.
 * 48: a family's algorithmIntroductions that do not end with a colon (a workspace family's "as follows.") make the
 *     `<ol>` after them steps again (rule 46 asked every introduction's paragraph to end with one).
 * 49: in a definition list of API entries, a term that starts an item without naming an entry (a Texinfo `@table`
 *     item with no index entry after one that has) and its definition are in the section around the list, not
 *     in the entry before them (they cited `#index-_002d_002dspeed` under "--speed" for `--verbose`).
 * 50: a table row of one cell spanning every column, with no id, heads the rows after it: a match in it cites the
 *     first id of its group (the Unicode annexes' "Do not break within emoji flag sequences..." cites #GB12, not #GB11).
 * 51: text and inline elements written directly in a family's entry list (pod2html's `<dl>`) are paragraphs, not
 *     dropped, as rule 47 made them in lists of API entries.
 * 52: a definition list's term with no id of its own whose first link goes to an id written after the list and
 *     before the next heading (Bikeshed's "for web developers" boxes: `element . closest(selectors)`) is cited,
 *     with its description, by that id (#dom-element-closest), not by the section or the link's back-reference.
 * 53: a mandoc family (manual pages as manpages.debian.org and man.openbsd.org render them, chosen by mandoc's
 *     markup): its title lines are chrome and each tagged term of a list (`dl.Bl-tag > dt[id]`, an option or
 *     keyword) is an entry; a term that is a lone list mark (`.IP o`) is a bullet, never an entry, in any family.
 * 54: rule 52 names a term only by an id a block holds: not by the id of a `<section>` or `<div>` that holds the
 *     next heading, by one inside what the extraction skips or outside its root, and a list with no text passes
 *     its terms' ids to nothing (they named the next block).
 * 55: a pod2html entry list's terms with ids open entries, subsections headed by the term (perlvar's `$EVAL_ERROR`,
 *     with `$@` an alternate id; perlfunc's forms one entry); a term that is an item's number (`=item 1.`) or a
 *     list mark is none, in any family's entries. A block's own generated id (Sphinx's `<dl id="index-0">`, pandoc's
 *     `<div id="cb5">`) is not its fragment: it cites what a block without an id cites, the id kept as an anchor.
 * 56: rule 55's review: a list mark or item number set as code or bold, or a mark written once in its list
 *     (ar's `<b>o</b>`, perldebug's `-`, perlre's `(R)`), is an entry; items a `<div>` groups in a pod2html list open
 *     entries at the list's level, and text between two terms parts them; a block's own generated id is no anchor
 *     where a stable id names the block (at the block's start it hid that id in a chunk); mandoc's tags that share
 *     one body (`<dd>&nbsp;</dd>` between them, ssh's `-L` forms) are one entry, the others its alternate ids.
 * 57: a man page's text that mandoc writes after a tagged list goes on with the list's last entry
 *     (entryContinuationSelectors: the `div.Bd-indent` of a .RS block inside a .TP item, and a list of untagged
 *     .IP paragraphs after it; not in mdoc pages, whose displays after a list are the section's); in any
 *     family's entry list, a term with no text and no id (`<dt></dt>`) goes on with the item before it.
 * 58: a plain text that opens with a manual page's title line (`LS(1)  User Commands  LS(1)`, as `man` formats
 *     a page for a terminal) is read as one (text/man-text.ts): headings in capitals are sections, three spaces in
 *     subsections, each item's tag (`.TP`: an option, a variable) an entry, the title and footer lines furniture,
 *     words hyphenated at a line end one word; in any plain text, overstruck characters (`N\bN`, `_\bN`) read as
 *     the one they show.
 * 59: HTML's `</body>` and `</html>` close nothing, as the standard's "after body" mode says: text and elements
 *     written after them are in the body (they were siblings of `<html>`, outside the extraction root, and lost).
 * 60: a manual page formatted for a terminal and put in a web page's `<pre>` (Postfix's HTML man pages, man.cgi)
 *     is read as the manual page (html/manual-page-pre.ts), as an htmlized RFC is read as the RFC; a manual
 *     page's bulleted or numbered items (`o`, `•`, `1.` in the tag's place) are list items of their section,
 *     not entries headed by their mark. Layout tables: a table whose cells hold a page's text with its headings
 *     (a navigation column beside it) is read cell by cell, its headings opening sections; a table that boxes
 *     part of a page (no row with two filled cells, a cell holding blocks: pydoc's classes and functions) is
 *     read cell by cell, its one-cell title row heading a section with the title's anchor (html/tables.ts).
 * 61: a GNU Info file read as plain text: each node's separator and header line (`File: x.info,  Node: ...`),
 *     its menu, the directory entry and the tag table are navigation, not text (text/text-extractor.ts).
 * 62: an Info menu ends at the first paragraph that is no entry or group title: a menu may open a node,
 *     before its text (bc's "4 Statements"), which 61 dropped with the menu.
 * 63: reference entries (referenceEntrySelectors: DocBook's div.refentry): a manual page in a book of them
 *     is a section headed by its name line, named by its id or leading anchor, its h2 "Name", "Synopsis",
 *     "Description" nested below it (they were siblings of the chapter around); the name heading is no
 *     section, and is read as a paragraph when it says more than the name line (Boost's "Class template x").
 * 64: an id in a table's caption or a figure's caption names the table or figure when it has none of its own
 *     (CUPS's `<caption>Table 1: <A NAME="TABLE01">`): the caption is no block, so the id named nothing.
 * 65: plain text: a numbered outline may end its number in `:` (`1.1: Sources`), follow Chapter/Appendix
 *     (`Chapter 8. Connection Setup`), or start with an appendix letter (`A.3.1`); a table of contents names
 *     the bare heading lines it lists (text/contents-headings.ts: xmlto's text of the X11 standard).
 * 66: a table of contents holds its list, not the sections after it (document-builder.ts): npm's pages head
 *     their contents h2 and their sections h3, and the whole page was inside the contents, apparatus.
 * 67: a heading ending in a colon that nothing names ("Parameters:", "Returns:", LDoc's parts of a function)
 *     is a label paragraph, not a section: the text after it cites the entry's anchor again.
 * 68: Scribble's index-entry tags (`(idx._(gentag._33._...))`, numbered in document order) are generated ids.
 * 69: a reference entry whose name division holds more text than its heading and name line is read as written
 *     (63 skipped the division after taking those two: a second paragraph in it was lost).
 * 70: the name division is read once, bounded (512 characters; past them it is read as written), before it is
 *     searched: reference entries nested in name divisions searched the ones below them at every level.
 * 71: plain text: a table of contents ("Table of Contents", "Contents:") with a heading after it heads a section
 *     of its own, one level below the one open, holding its list (apparatus; the next heading closes it).
 * 72: Doxygen's numbered anchors (`a116_WARN_AS_ERROR`, `autotoc_md12`) are generated ids.
 * 73: so are the index targets CMake's Sphinx domain puts on each mention (`index-0-prop_tgt:LINK_LIBRARIES`).
 * 74: of a block's ids at one place, the one the block's own link names comes last, the one a chunk keeps
 *     (HAProxy's `<a href="#4.2-retries">retries</a>` among `retries`, `4-retries`, `4.2-retries`).
 * 75: a manual page saved as text may rule off its NAME and SYNOPSIS (Tcl's and Tk's pages): the rules are furniture.
 * 76: a place's every copy of its linked id goes last (one copy was dropped when the id was written twice there).
 * 77: an `<a name>` holding the text a block starts with opens a passage, as an empty one does (LAME's option titles).
 * 78: Texinfo (rules marksNameFirst): of a place's ids that are all marks (elements without text), the first comes
 *     last, the one a chunk keeps: an option's index entries before its term cite `index-SHARE_005fHISTORY`, not
 *     `index-history_002c-sharing`.
 */
export const EXTRACT_RULE_VERSION = 78;
/**
 * The PDF extractor's own version (1: pdf-parse tables; 2: tables from geometry with rowPages, and
 * heading-guess limits; 3: unruled tables as reports set them (wrapped cells at the row pitch, bold
 * two-line headers, currency signs with their figures), superscripts and subscripts as ^x and _x,
 * numbered bold headings, running heads and feet as furniture, the text-item bound per byte; 4:
 * superscripts and subscripts inside table cells as ^x and _x, as in prose; 5: an Info Title that is a
 * file name ("10811.exe", "Microsoft Word - x.docx") is no title; 6: outline entries that carry their
 * section number match the heading line; running heads and feet at the page's first or last row; a
 * paragraph under headings whose word spaces line up is no table; an outlined PDF without a Title is
 * titled by its first page; a list item's hanging lines continue it; a raised letter kerned into the
 * one before it, as in the LaTeX logo, is no superscript; an unnumbered line 1.15 times the body in a
 * font of its own is a heading; listings in a monospaced font are code blocks; 7: tables are found without
 * running heads and feet; a heading may mix fonts the body is not set in; numbered headings and a
 * browser's outline take the levels an HTML page has; a table of contents's entries are dropped;
 * headings hanging left of the text, as in a man page; numbered headings in lower case or at h5 size;
 * self-link pilcrows dropped; a heading beside a table is no row of it;
 * aligned listings are code, each run at its column; a browser's contents list is dropped; a column of page
 * numbers is no column; an unmapped marker glyph is a bullet; a C0 control glyph is U+FFFD;
 * the first page's title is level 1; 8: a paragraph continues over a page or column break mid-sentence
 * (span endPage); hanging and tagged items are one block each; outline titles match their heading lines
 * by letters and digits; numbered headings below the outline's depth; watermarks at an angle are
 * furniture; a float across both columns leaves the gutter found; 9: a heading guessed from its type
 * that wraps onto the lines below it is one heading, the lines joined; 10: a line is measured by its
 * tallest run of text, not a taller mark (a Type 3 bullet read as a heading, its item as a subscript);
 * a lone U+FFFD glyph before a line's text is a bullet; 11: a running head or foot repeats in the same
 * size, so a title page's title is not furniture because the head repeats it smaller; 12: that size to half a
 * point, not in whole points rounded, which parted 10.45 from 10.55; a run pdfjs places nowhere (NaN, a
 * font size past the largest double) is no text, where it joined its page's runs into one line dropped
 * whole; 13: a running head or foot whose number is its page's, in the size of the heads and feet that number
 * the pages, is furniture though its text is its own: the title of a section one page long beside the number,
 * "Black preserving intents 29", was read as text; a heading's line centred under it, in its type, is
 * its continuation, as one set under its start is: a title page's wrapped title; an outline entry without a
 * destination opens where the next entry with one does, where it held back every entry after it; one whose
 * title no line of its page carries and whose destination has no height (/Fit) opens at its page's top, not the
 * next page's; 14: without an outline, a line in bold body type standing alone over the text it heads, a little
 * space below it, is a heading one level below the last heading set larger (the Federal Register's
 * "Background": 16 headings of a rule that was one section), not when it reads as a sentence, names a code
 * identifier or spreads over a table's columns); 15: a numbered line all in a monospaced font the body is not set
 * in is a listing's (a line number, an R session's output `9 NA 7 6`), a heading only when a dot ends its number
 * (an RFC reprinted in typewriter type); 16: a paragraph or table the page's end interrupts records where each
 * later page begins in its text (Block.pageStarts); 17: without an outline, numbered titles ending in a full stop
 * ("1. Greetings!.", plain TeX's style) are headings when the document sets them on three pages or more; 18: a
 * numbered title whose words are in a font of their own is one with its number in the body's type (amsart's "1." in
 * roman before "A Simple Example" in small capitals); 19: one test of a title's words set apart for both (a number
 * or a stop may be in any font in a full-stop title too); 20: the first line of a numbered contents entry whose
 * title wraps (no leader, no page number; its next line an entry starting right of it) is the contents' too. It
 * enters the extraction
 * config of PDF documents only, so bumping it rebuilds PDFs and leaves every other document's bytes
 * alone.
 */
export const PDF_EXTRACTOR_VERSION = 20;
/**
 * 2: heading paths start with the document title (same shape for every extractor); chunks record the ids
 * inside their text; chunks of one algorithm block cite the steps they cover. 3: chunk files record the
 * options they were cut with (CHUNKS_FORMAT_VERSION 2). 4: a block ending with a colon (a lead-in) goes
 * with the block it introduces, or that block's first piece; text laid out in lines is cut at line
 * starts first, not right after a line ending with a colon; a piece's overlap starts at a word after
 * whitespace, not inside "Channel-Identifier".
 * 5: a title or heading longer than 256 code units is cut (ending in "…") in heading paths, so a
 * long heading no longer makes the chunk file quadratic in it. 6: a chunk of a section of the
 * document's apparatus (contents, status, acknowledgements, references, indexes, change logs) says so
 * (apparatus: true). 7: a PDF chunk records where each later page starts as an anchor (`page=N`), so a
 * hit cites the page its match is on. 8: at one offset a generated id (`index-N`, `ref-for-*`) no longer
 * hides a stable one: the innermost id is kept unless it is generated and an outer one is not.
 * 9: a section that summarises the document's other sections (its text is mostly tables and lists whose
 * lines are named by links to those sections: qdoc's "Public Functions", Javadoc's "Method Summary", RDoc's
 * "Methods for Querying", an index) is apparatus too (chunk/summary-sections.ts). 10: so is a section of lists
 * whose items are links and nothing else, to any page ("See also"). 11: and a table whose rows are each a link
 * beside numbers or marks (a contents sidebar); the text before the first heading is weighed as a section of its
 * own, so a page's navigation there (Scribble's contents tables, outside any <nav>) is apparatus too.
 * 12: a block that runs onto a later page (Block.pageStarts) marks where it does with a page anchor, and a
 * piece of it cites the pages its own text is on (a table's rows on the next page cited its first page).
 * 13: Doxygen's numbered anchors are generated ids (at one offset, a stable id wins over them).
 * 14: so are CMake's Sphinx index targets on mentions (`index-0-generator:Xcode`).
 * 15: a piece of a long block starts with the first name of the place in force there (anchor-names.ts).
 * 16: at most MAX_NAMES names back (a text of one long list of names stays linear).
 * 17: a long block is cut first where an entry begins (a stable id at a line start: a `<dt id>`, an
 * option's index anchors), with no overlap there, so an entry's term never ends one piece while its
 * text starts the next. 18: in a definition list, the id of a definition after its term is no entry start
 * (xml2rfc's `<dd id>`): the entry begins at its term.
 */
export const CHUNK_RULE_VERSION = 18;
/**
 * Search-index file layout (5: sealed head with plain number lists, CRC-32-checked posting blocks and
 * compressed row blocks; 6: heading-path term frequencies in postings, duplicate-passage groups in the
 * head; 7: each row ends with the source ids inside its text, then, for an algorithm chunk, the steps it
 * covers; 8: above 256 documents, a manifest naming segment files of consecutive documents, each with its
 * chunks' passage keys; 9: each posting block starts with its terms and their postings' lengths, and
 * the head names each block's first term instead of listing every term; 10: each row block is a
 * sync-flushed DEFLATE member, every row ends with a line feed, so a query inflates all the blocks it
 * needs in one call; 11: the head's per-chunk lists (lengths, normativity codes, same-passage groups as
 * each chunk's group) are base64 strings of little-endian integers; 12: a row's plain source range
 * is in its block's span column in the head, not in the compressed row; 13: the head lists the
 * chunks of a document's apparatus, apparatusChunks, whose matches a query weighs less).
 */
export const SEARCH_INDEX_FORMAT_VERSION = 13;
/**
 * Per-document index part layout (cached under .episteme/cache/index-parts). 5: 16 KiB compressed row
 * blocks, number lists. 6: sealed with a SHA-256 line; the index records its chunk index's CRC-32.
 * 7: heading term frequencies, passage keys. 8: rows carry anchors and an algorithm chunk's steps.
 * 9: row blocks as in search-index format 10. 10: row blocks compressed at level 3 (was 9).
 * 11: the header names each row block by its raw bytes' SHA-256 (rowBlockKeys), so the document's
 * next part reuses unchanged blocks instead of compressing them again. 12: row blocks as in search-index
 * format 12 (source ranges in the span column, so an edit leaves the blocks after it unchanged).
 * 13: the header lists the document's apparatus chunks.
 */
export const INDEX_PART_VERSION = 13;
/**
 * Tokenizer and stemming: index bytes and query matching depend on it. 2: the index also counts the
 * parts of compound words (tokenizer.ts indexTerms: MRCPv2 -> mrcp v2). 3: a word over 64 characters
 * is no compound. 4: a word part of combining marks alone (a variation selector) has no term; it was
 * the empty term, which every such part matched. 5: the index also counts symbol terms (symbol-terms.ts:
 * `->>`, `<=>`, `\K`), outside a chunk's length. 6: a dash before a one-letter word is an option term
 * (`-N`). 7: a soft hyphen, zero-width (non-)joiner or word joiner between word characters is inside
 * the word and left out of its term ("pas\u00ADsword" is password; it was the words pas and sword).
 */
export const TOKENIZER_VERSION = 7;

/**
 * Which documents the search index cuts into which files (index-layout.ts planSearchSegments), beside the
 * format each file has. 1: one file up to 256 documents. 2: segments from 17 documents on (about eight
 * up to 256), so that a one-document edit of a small corpus merges an eighth of it, not all of it.
 * Format 11 readers read either layout; the version disowns the records and remote-cache entries of the
 * old plan, so `explain` names the change rather than a changed input.
 */
export const SEARCH_INDEX_PLAN_VERSION = 2;
/** The search-index rule's version combines everything its bytes depend on. */
export const SEARCH_INDEX_RULE_VERSION =
  SEARCH_INDEX_PLAN_VERSION * 1_000_000_000 + SEARCH_INDEX_FORMAT_VERSION * 1_000_000 + INDEX_PART_VERSION * 1000 + TOKENIZER_VERSION;

export const RULE_VERSIONS: Record<string, number> = {
  extract: EXTRACT_RULE_VERSION,
  // A PDF's extraction key holds its own version: without it here, a bump left PDFs proven up to date.
  'pdf-extract': PDF_EXTRACTOR_VERSION,
  chunk: CHUNK_RULE_VERSION,
  'search-index': SEARCH_INDEX_RULE_VERSION,
};

/** Artifact format versions of the stage outputs (a reader refuses other versions). */
/** 2: above 256 entries a stage index is a manifest naming segment files (store/stage-index.ts). */
export const STAGE_INDEX_FORMAT_VERSION = 2;
export const DOCUMENT_FORMAT_VERSION = 1;
/** 2: the payload records the options the chunks were cut with (`chunkOptions`). */
export const CHUNKS_FORMAT_VERSION = 2;
