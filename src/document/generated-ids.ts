/**
 * A generator-made id that counts what comes before it, so it moves when the document gains a link,
 * an index entry or an element earlier on: Bikeshed's back-references `ref-for-` / `term-for-` and
 * numbered duplicates (circled digits); xml2rfc's cross-reference and index-entry ids
 * (`rfc.xref.<anchor>.<n>`, `rfc.iref.<letter>.<n>`); Sphinx's index-entry targets (`index-12`, and
 * `index-0-prop_tgt:LINK_LIBRARIES`, which CMake's Sphinx domain puts on each mention of a property or
 * command: the number counts the mentions before it) and
 * docutils' numbered ids (`id3`, given to a duplicate or unnamed target); DocBook XSL's ids made of
 * the element's position in the tree (`id-1.5.7.13.18.7`); pandoc's code blocks and their lines,
 * numbered in document order (`cb5`, `cb5-12`); HeVeA's index-entry anchors (`hevea_default12`);
 * Scribble's (Racket's documentation) index-entry tags, `(idx._(gentag._33._(lib._scribblings/...)))`;
 * Doxygen's numbered anchors: `a116_WARN_AS_ERROR` (the counter before an option's name, beside the
 * `cfg_warn_as_error` its manual links to) and `autotoc_md12` (a Markdown heading without an id).
 * Extraction asks it of the anchor opening a passage, queries of the id a citation names.
 */
export function isGeneratedId(id: string): boolean {
  return (
    /^(?:(?:ref|term)-for-|rfc\.xref\.|rfc\.iref\.)/.test(id) ||
    /^(?:index-\d+(?:-[a-z_]+:.+)?|id\d+|id-\d+(?:\.\d+)+|cb\d+(?:-\d+)?|hevea_default\d+|a\d+_[A-Z][A-Z0-9_]*|autotoc_md\d+)$/.test(id) ||
    id.startsWith('(idx._(gentag._') ||
    /[\u2460-\u24ff\u2776-\u2793]/u.test(id)
  );
}
