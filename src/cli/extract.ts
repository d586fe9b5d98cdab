import { Command } from 'clipanion';
import { GraphCommand, targetsOfRules } from './build-runner.js';
import type { CommandResult } from './base-command.js';
import type { Output } from './output.js';
import { DEFAULT_EXTRACT_OPTIONS, EXTRACT_OPTION_RANGES } from '../extract/options.js';
import {
  MAX_OUTLINE_DEPTH,
  MAX_SOURCE_ID_LENGTH,
  MAX_TREE_DEPTH,
  PDF_BOUNDS,
  TABLE_SPAN_COPY_BOUNDS,
  XML_ENTITY_BOUNDS,
} from '../extract/input-bounds.js';

const MIB = 1024 * 1024;

const range = (name: keyof typeof EXTRACT_OPTION_RANGES): string =>
  `${DEFAULT_EXTRACT_OPTIONS[name]} (${EXTRACT_OPTION_RANGES[name].min} to ${EXTRACT_OPTION_RANGES[name].max})`;

export class ExtractCommand extends GraphCommand {
  static override paths = [['extract']];
  static override usage = Command.Usage({
    category: 'Stages',
    description: 'Extract recorded snapshots into structured evidence documents, offline.',
    details:
      `
      Builds \`specs/<doc>.json\` for every source from its recorded snapshot and commits \`specs/index.json\`. Documents hold sections, ` +
      `blocks, fragment ids, provenance (producer version, extractor, source SHA-256, extraction-config SHA-256, ` +
      `snapshot id) and diagnostics; all captured text is marked \`contentTrust: "untrusted-source"\`.

      No network access: a local source (manual-ingest map) is recorded from its file, but an HTTP source without a recorded snapshot ` +
      `fails with \`snapshot-missing\` (exit 2); capture it with \`episteme snapshot\` or \`episteme build\`. ` +
      `The same holds for \`chunk\`, \`index\` and \`manual-ingest\`.

      A document whose extraction records error diagnostics (an encrypted or empty PDF, malformed XML) is still built, ` +
      `and the summary counts and names it; \`--fail-on\` decides the exit code (default error: exit 1 with \`document-diagnostics\`).

      Every document is extracted in a worker thread under a time and a heap bound; one that trips a bound fails its own target, ` +
      `is not recorded, and is tried again by the next build, while the other sources go on. Bounds and options (workspace config ` +
      `\`options.extract\`, integers; default, then range):

      - \`timeoutMs\`: ${range('timeoutMs')}. Wall-clock bound per HTML, XML or text document; past it: \`extract-timeout\`.
      - \`pdfTimeoutMs\`: ${range('pdfTimeoutMs')}. The same for a PDF.
      - \`maxHeapMb\`: ${range('maxHeapMb')}. Heap of each extraction worker, MiB; past it: \`extract-memory-limit\`.
      - \`pdfMaxPages\`: ${range('pdfMaxPages')}. Pages extracted per PDF; the rest is cut with the warning \`pdf-pages-truncated\`.
      - \`links\`: ${String(DEFAULT_EXTRACT_OPTIONS.links)} (boolean). Record each block's links.

      Fixed bounds: HTML and XML trees nest at most ${MAX_TREE_DEPTH} deep (deeper elements are attached at depth ${MAX_TREE_DEPTH}, ` +
      `warning \`html-depth-capped\` / \`xml-depth-capped\`); sections, list items and algorithm steps nest at most ` +
      `${MAX_OUTLINE_DEPTH} levels (deeper ones are kept at that level, warning \`section-depth-capped\` / ` +
      `\`list-depth-capped\`); a source id longer than ${MAX_SOURCE_ID_LENGTH} code units is read as no id (warning ` +
      `\`id-too-long\`); table cells copy their text into the slots they span up to ${TABLE_SPAN_COPY_BOUNDS.factor} times ` +
      `the document's characters (at least ${TABLE_SPAN_COPY_BOUNDS.floorChars / MIB} Mi), then take one slot (warning ` +
      `\`table-spans-capped\`); XML internal entities expand at most ${XML_ENTITY_BOUNDS.maxExpansions} ` +
      `times, to at most ${XML_ENTITY_BOUNDS.maxExpandedChars / MIB} Mi characters, and past ` +
      `${XML_ENTITY_BOUNDS.amplificationActivationChars / MIB} Mi to at most ${XML_ENTITY_BOUNDS.amplificationFactor} times the ` +
      `document; a PDF's compressed streams decode to at most ${PDF_BOUNDS.maxInflatedBytes / MIB} MiB, and past ` +
      `${PDF_BOUNDS.amplificationActivationBytes / MIB} MiB to at most ${PDF_BOUNDS.amplificationFactor} times the file; ` +
      `a PDF has at most ${PDF_BOUNDS.maxTextItems} text items, and past ${PDF_BOUNDS.textItemsActivation} at most ` +
      `${PDF_BOUNDS.textItemsPerByte} per byte of the file. Past one of these: \`extract-bound-exceeded\` (\`details.bound\` names ` +
      `it). A value out of range is \`config-invalid\`.
    `,
    examples: [['Extract every source of the workspace', 'episteme extract']],
  });
  readonly commandName = 'extract';

  async run(output: Output): Promise<CommandResult> {
    const ws = await this.workspace();
    return (await this.runTargets(output, ws, targetsOfRules(ws, ['extract', 'document-index']))).result;
  }
}
