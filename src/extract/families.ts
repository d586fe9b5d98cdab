import { readdirSync } from 'node:fs';
import { readBoundedFile } from '../store/bounded-read.js';
import { DEFAULT_MAX_INPUT_BYTES, duplicateKeyProblem, userJsonText } from '../store/bounded-input.js';
import path from 'node:path';
import { EpistemeError } from '../failure.js';
import type { Authority, ExtractorId } from '../document/types.js';
import { compareCodeUnits } from '../store/canonical-json.js';
import { builtinRules, rulesDir } from './package-paths.js';
import { validateRules } from './validate.js';
import { schemaFields, schemaRanges, validateRulesSchema } from '../generated/validators.js';
import { describeSchemaErrors } from '../store/schema-errors.js';

/** Selectors and class lists that drive HTML extraction for one family (rules/<id>.json, "html"). */
export interface HtmlRules {
  /**
   * Tried in order; the first selector that matches anything gives the extraction root, its first match,
   * unless it also matches an element outside that one (side-by-side `<article>`s) or that match holds one API
   * entry (entryBlockSelectors): then the next is tried.
   */
  rootSelectors: string[];
  /** Elements whose id names the section opened by their first heading (`<section id>` in RFC HTML). */
  sectionSelectors: string[];
  /** Elements dropped with everything inside (navigation, tables of contents, boilerplate, scripts). */
  pruneSelectors: string[];
  /** Elements removed from heading text only (self-links, section numbers, pilcrows). */
  headingStripSelectors: string[];
  /** Elements whose text is the printed section number inside a heading. */
  sectionNumberSelectors: string[];
  algorithmSelectors: string[];
  /**
   * Lower-case endings of a paragraph that introduces the `<ol>` right after it as an algorithm's
   * steps ("run these steps:"). Optional: none means only algorithmSelectors make algorithms.
   */
  algorithmIntroductions?: string[];
  idlSelectors: string[];
  grammarSelectors: string[];
  /** Elements that are notes / examples by name rather than class (ecmarkup `emu-note`, xml2rfc's `<aside>`). Optional. */
  noteSelectors?: string[];
  exampleSelectors?: string[];
  /** Elements that link by their own href when they hold no `<a>` (ecmarkup `emu-xref`). Optional. */
  crossReferenceSelectors?: string[];
  /**
   * A heading's level is the number of enclosing section elements (sectionSelectors) plus its tag's
   * level minus one, not its tag alone: ecmarkup writes every clause heading as `<h1>` and subheadings
   * ("Syntax") as `<h2>`. Optional (default false).
   */
  sectionLevelFromNesting?: boolean;
  /**
   * Of several marks at one place (elements without text: `<span id="x"></span>`), the first written names
   * it: Texinfo writes an item's index entries before its term, the author's primary one first
   * (`index-SHARE_005fHISTORY`, ..., `index-history_002c-sharing`). Optional (default false: the last
   * names it, as the innermost of nested elements does; Chez Scheme's `./smgmt:s26` then `desc:ephemeron-cons`).
   */
  marksNameFirst?: boolean;
  noteClasses: string[];
  exampleClasses: string[];
  issueClasses: string[];
  /** Class markers that make an element and its content informative / normative. */
  informativeClasses: string[];
  normativeClasses: string[];
  /** Elements that wrap one BCP 14 keyword (span.bcp14, em.rfc2119). */
  keywordSelectors: string[];
  /** Section ids (fragment or alternate) whose content is informative. */
  informativeSectionIds: string[];
  /** Lower-case headings whose section content is informative ("acknowledgements", "references"). */
  informativeHeadings: string[];
  /** Section elements informative by their own markup (ecmarkup: a top-level `emu-annex` without `normative`). Optional. */
  informativeSectionSelectors?: string[];
  /** Lower-case heading parts that make a section informative ("(informative)" after an annex title). Optional. */
  informativeHeadingMarkers?: string[];
  /** Lower-case sentence prefixes that declare the current section informative. */
  informativeStatements: string[];
  /** Front matter read as document metadata, never as blocks (xml2rfc `dl#identifiers`); optional. */
  metadataSelectors?: string[];
  /** Anchors that, opening a block, give it their id (Unicode conformance clauses); optional. */
  blockAnchorSelectors?: string[];
  /** Preformatted elements that are drawings (kind artwork) rather than code; optional. */
  artworkSelectors?: string[];
  /** Elements other than `<pre>` that hold code line by line, read verbatim as a code block (Doxygen's `div.fragment`); optional. */
  codeSelectors?: string[];
  /** Definition lists of documented entries read entry by entry, each term a block citing its id (pod2html's `=item` lists); optional. */
  entryListSelectors?: string[];
  /** Block elements that caption the rest of their parent as a figcaption does (DocBook's `div.table > p.title`); optional. */
  captionSelectors?: string[];
  /** Elements laid out as a table by a style sheet, child elements its cells in row order (javadoc); optional. */
  gridTableSelectors?: string[];
  /** The header cells opening a grid table: their count is its column count; optional. */
  gridHeaderCellSelectors?: string[];
  /** Definition terms naming an API entry (Sphinx's `dt.sig-object[id]`): each entry a subsection; optional. */
  entrySelectors?: string[];
  /**
   * Elements right after a list of entries (entrySelectors) that go on with its last entry, read inside
   * it (mandoc's `div.Bd-indent` after a man page's tagged list: a .RS block inside a .TP item); optional.
   */
  entryContinuationSelectors?: string[];
  /**
   * Elements that each hold one API entry, its signature their first child element (Haddock's `div.top`,
   * `p.src` first): each a subsection as an entrySelectors term opens, its id the signature's; optional.
   */
  entryBlockSelectors?: string[];
  /** Headings that label the blocks after them inside an entry (Erlang/OTP's "Types"), read as a paragraph; optional. */
  labelHeadingSelectors?: string[];
  /**
   * Elements whose headings sit below the section open where the element starts (TypeDoc's member
   * descriptions, whose author writes `### Usage` as the member's own h3): at least one level below; optional.
   */
  nestedHeadingSelectors?: string[];
  /**
   * Reference entries inside a larger page (DocBook's div.refentry in a book of manual pages): each a
   * section headed by its name line (referenceNameSelectors), its headings shifted below it; optional.
   */
  referenceEntrySelectors?: string[];
  /** The element inside a reference entry that holds its name line (DocBook's div.refnamediv); optional. */
  referenceNameSelectors?: string[];
}

export interface TextRules {
  /** Read as an RFC: form-feed pages, page headers/footers, numbered section headings. */
  rfcLayout: boolean;
}

export interface FamilyRules {
  id: string;
  description: string;
  /**
   * Exact hosts, or host suffixes matched on label boundaries (`whatwg.org` matches `url.spec.whatwg.org`);
   * `generators`, the tools whose output the family reads, for a document whose URL no family names.
   */
  match: { hosts: string[]; hostSuffixes: string[]; urlPrefixes?: string[]; generators?: string[] };
  defaults: { authority: Authority; documentType: string; extractor: ExtractorId };
  html: HtmlRules;
  text: TextRules;
}

export interface LoadedFamily {
  rules: FamilyRules;
  /** File name inside rules/ (recorded in the extraction config). */
  file: string;
  /** Set for a workspace's own family: the rules file, workspace-relative ("my-rules/acme.json"). */
  workspaceFile?: string;
}

let cache: { dir: string | undefined; families: LoadedFamily[] } | undefined;

/** For a long-running process (watch): the rules files changed, read them again on next use. */
export function forgetLoadedFamilies(): void {
  cache = undefined;
}

/**
 * All families from rules/ (or, without a rules/ folder, from the copy built into the code), sorted
 * by file name; validated against schema/rules.schema.json once.
 */
export function loadFamilies(dir: string | undefined = rulesDir()): LoadedFamily[] {
  if (cache && cache.dir === dir) return cache.families;
  const builtin = builtinRules();
  let names: string[];
  try {
    names = (dir === undefined ? Object.keys(builtin) : readdirSync(dir)).filter((name) => name.endsWith('.json')).sort(compareCodeUnits);
  } catch (cause) {
    throw new EpistemeError('config-invalid', `Extraction rules directory ${dir} cannot be read.`, { cause });
  }
  const families: LoadedFamily[] = [];
  const seen = new Set<string>();
  for (const name of names) {
    // Bounded like any named input: a FIFO or a huge file in rules/ is refused, never read.
    const bytes =
      dir === undefined
        ? Buffer.from(builtin[name]!, 'utf8')
        : readBoundedFile(path.join(dir, name), { label: 'Extraction rules file', maxBytes: DEFAULT_MAX_INPUT_BYTES });
    const rules = parseFamilyRules(bytes, `rules/${name}`, name);
    if (seen.has(rules.id)) throw new EpistemeError('config-invalid', `Duplicate extraction family id "${rules.id}".`);
    seen.add(rules.id);
    families.push({ rules, file: name });
  }
  if (!seen.has('generic'))
    throw new EpistemeError('config-invalid', `Extraction rules in ${dir ?? 'the built-in copy of rules/'} define no "generic" family.`);
  cache = { dir, families };
  return families;
}

/**
 * One family rules file: JSON, valid against schema/rules.schema.json, named after its id. Problems are
 * config-invalid errors naming the file (`shown`) and each field in words.
 */
export function parseFamilyRules(bytes: Uint8Array, shown: string, name: string): FamilyRules {
  let parsed: unknown;
  const text = userJsonText(bytes);
  try {
    parsed = JSON.parse(text);
  } catch (cause) {
    throw new EpistemeError('config-invalid', `Extraction rules file ${shown} is not valid JSON.`, { cause, details: { file: shown } });
  }
  const duplicate = duplicateKeyProblem(text, 'item');
  if (duplicate !== null) {
    throw new EpistemeError('config-invalid', `Extraction rules file ${shown} is invalid: ${duplicate.problem}`, {
      hint: `Keep one "${duplicate.key}" in that object (JSON would silently use the last).`,
      details: { file: shown, errors: [duplicate.problem] },
    });
  }
  if (!validateRules(parsed).ok) {
    // Each problem names its field in words ("field match.hosts, item 0: must be a lower-case host name").
    const errors = describeSchemaErrors(
      validateRulesSchema.errors,
      'item',
      schemaRanges['validateRulesSchema'] ?? {},
      schemaFields['validateRulesSchema'] ?? {},
    );
    throw new EpistemeError('config-invalid', `Extraction rules file ${shown} breaks schema/rules.schema.json: ${errors.join('; ')}`, {
      hint: 'See schema/rules.schema.json and the built-in rules/*.json for the fields a family declares.',
      details: { file: shown, errors },
    });
  }
  const rules = parsed as FamilyRules;
  if (`${rules.id}.json` !== name) {
    throw new EpistemeError(
      'config-invalid',
      `Extraction rules file ${shown} declares id "${rules.id}"; the file must be named ${rules.id}.json.`,
      {
        details: { file: shown, field: 'id' },
      },
    );
  }
  return rules;
}

/** Built-in families followed by `extra` (a workspace's own), which win host matches over built-ins. */
function allFamilies(extra: readonly LoadedFamily[] | undefined): LoadedFamily[] {
  const builtIn = loadFamilies();
  return extra === undefined || extra.length === 0 ? builtIn : [...extra, ...builtIn];
}

export function familyIds(): string[] {
  return loadFamilies().map((family) => family.rules.id);
}

/** True when `host` equals `suffix` or ends with "." + suffix (label boundary: never "evilwhatwg.org"). */
export function hostMatchesSuffix(host: string, suffix: string): boolean {
  const h = host.toLowerCase();
  const s = suffix.toLowerCase();
  return h === s || h.endsWith('.' + s);
}

/**
 * The family for a source by its URL alone: the explicit id when given (unknown = config-invalid), else
 * the longest URL prefix, else the first family (by file name) whose hosts match the URL host exactly,
 * else the longest matching suffix, else generic. A document whose URL no family names may still take a
 * family from its content (familyByUrl, familyForGenerators).
 */
export function resolveFamily(url: string, explicit: string | undefined, workspaceFamilies?: readonly LoadedFamily[]): LoadedFamily {
  return familyByUrl(url, explicit, workspaceFamilies) ?? genericFamily(workspaceFamilies);
}

/** The generic family: what a document gets when neither its URL nor its content names another. */
export function genericFamily(workspaceFamilies?: readonly LoadedFamily[]): LoadedFamily {
  const generic = allFamilies(workspaceFamilies).find((family) => family.rules.id === 'generic');
  if (!generic) throw new EpistemeError('config-invalid', 'No "generic" extraction family.');
  return generic;
}

/** resolveFamily without its last resort: null when neither the source's entry nor its URL names a family. */
export function familyByUrl(url: string, explicit: string | undefined, workspaceFamilies?: readonly LoadedFamily[]): LoadedFamily | null {
  const families = allFamilies(workspaceFamilies);
  if (explicit !== undefined) {
    const found = families.find((family) => family.rules.id === explicit);
    if (!found) {
      throw new EpistemeError('config-invalid', `Unknown extraction family "${explicit}".`, {
        hint: `Known families: ${families
          .map((f) => f.rules.id)
          .sort(compareCodeUnits)
          .join(', ')}.`,
        details: { family: explicit },
      });
    }
    return found;
  }
  // A URL prefix is more specific than a host: www.ietf.org/archive/id/ holds drafts, not RFCs.
  let byPrefix: { family: LoadedFamily; length: number } | undefined;
  for (const family of families) {
    for (const prefix of family.rules.match.urlPrefixes ?? []) {
      if (url.startsWith(prefix) && (!byPrefix || prefix.length > byPrefix.length)) byPrefix = { family, length: prefix.length };
    }
  }
  if (byPrefix) return byPrefix.family;
  let host = '';
  try {
    host = new URL(url).hostname.toLowerCase();
  } catch {
    host = '';
  }
  if (host !== '') {
    const exact = families.find((family) => family.rules.match.hosts.some((h) => h.toLowerCase() === host));
    if (exact) return exact;
    // Longest matching suffix wins, so a more specific family beats a broad one (a workspace family
    // wins a tie, being listed first).
    let best: { family: LoadedFamily; length: number } | undefined;
    for (const family of families) {
      for (const suffix of family.rules.match.hostSuffixes) {
        if (hostMatchesSuffix(host, suffix) && (!best || suffix.length > best.length)) best = { family, length: suffix.length };
      }
    }
    if (best) return best.family;
  }
  return null;
}

let contentCache: { builtIn: readonly LoadedFamily[]; extra: readonly LoadedFamily[] | undefined; families: LoadedFamily[] } | undefined;

/**
 * The families a document's content may select when its URL names none: those that list generators
 * (`match.generators`), workspace families first, then the built-in ones by file name. The same array
 * while the rules are the same, so the key of every such document serialises it once.
 */
export function contentFamilies(workspaceFamilies?: readonly LoadedFamily[]): readonly LoadedFamily[] {
  const builtIn = loadFamilies();
  if (contentCache?.builtIn === builtIn && contentCache.extra === workspaceFamilies) return contentCache.families;
  const families = allFamilies(workspaceFamilies).filter((family) => (family.rules.match.generators ?? []).length > 0);
  contentCache = { builtIn, extra: workspaceFamilies, families };
  return families;
}

/** What a document declares about the tool that made it (extract/declared-generator.ts). */
export interface GeneratorClaim {
  /** The generator's text: a `<meta name="generator">` content, or the name of a tool whose markup the document carries. */
  generator: string;
  /** Where it was read ("<meta name=\"generator\">", "a ReSpec script", "the RFC XML root <rfc number>"...), for the diagnostic. */
  evidence: string;
  /** The document type the document declares itself (an RFC number: "rfc"; a draft name: "internet-draft"), or null. */
  documentType: string | null;
}

/**
 * Whether a generator text names `name`: the name as a whole word, case-insensitive ("Bikeshed version
 * 3f1e" names Bikeshed; "https://github.com/mnot/RFCBootstrap XSLT" names RFCBootstrap; "Bikesheds" does
 * not name Bikeshed).
 */
export function namesGenerator(text: string, name: string): boolean {
  const haystack = text.toLowerCase();
  const needle = name.toLowerCase();
  if (needle === '') return false;
  const isWordChar = (code: number): boolean => (code >= 48 && code <= 57) || (code >= 97 && code <= 122);
  for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + 1)) {
    const before = at === 0 ? -1 : haystack.charCodeAt(at - 1);
    const after = at + needle.length >= haystack.length ? -1 : haystack.charCodeAt(at + needle.length);
    if (!isWordChar(before) && !isWordChar(after)) return true;
  }
  return false;
}

/**
 * The family a document's claims select among `candidates` (contentFamilies), with the claim that
 * selected it: the first claim some family lists the generator of; among the families that list it, the
 * one whose document type the claim declares, else the first. Null when no claim names a listed generator.
 */
export function familyForGenerators(
  claims: readonly GeneratorClaim[],
  candidates: readonly LoadedFamily[],
  declaredTypeOnly = false,
): { family: LoadedFamily; claim: GeneratorClaim; generator: string } | null {
  for (const claim of claims) {
    let first: { family: LoadedFamily; generator: string } | undefined;
    for (const family of candidates) {
      const generator = (family.rules.match.generators ?? []).find((name) => namesGenerator(claim.generator, name));
      if (generator === undefined) continue;
      if (claim.documentType !== null && family.rules.defaults.documentType === claim.documentType) return { family, claim, generator };
      first ??= { family, generator };
    }
    if (first && !declaredTypeOnly) return { ...first, claim };
  }
  return null;
}

const siblingCache = new WeakMap<LoadedFamily, { among: readonly LoadedFamily[]; siblings: readonly LoadedFamily[] }>();

/**
 * The other families that read exactly the tools `family` reads and give another document type (rfc
 * and ietf-draft: xml2rfc, kramdown-rfc, ...): a document on a host its URL gives to `family` that
 * declares the type of one of them (an Internet-Draft on httpwg.org, whose RFCs the rfc family reads)
 * is read with that one's rules. Families that share only some tools (w3c and whatwg share Bikeshed)
 * differ in more than the type, and a URL that names one keeps it.
 */
export function siblingFamilies(family: LoadedFamily, workspaceFamilies?: readonly LoadedFamily[]): readonly LoadedFamily[] {
  const among = contentFamilies(workspaceFamilies);
  const cached = siblingCache.get(family);
  if (cached?.among === among) return cached.siblings;
  const tools = (f: LoadedFamily): string =>
    (f.rules.match.generators ?? [])
      .map((name) => name.toLowerCase())
      .sort(compareCodeUnits)
      .join('\n');
  const own = tools(family);
  const siblings =
    own === ''
      ? []
      : among.filter(
          (other) => other !== family && other.rules.defaults.documentType !== family.rules.defaults.documentType && tools(other) === own,
        );
  siblingCache.set(family, { among, siblings });
  return siblings;
}
