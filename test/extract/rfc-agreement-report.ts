import { compare } from './rfc-agreement.js';
import { extractCorpusFile } from './helpers.js';

/**
 * Diagnostic: every unpaired or disagreeing block of one RFC pair, for fixing the classes behind them.
 * Usage: node dist/test/extract/rfc-agreement-report.js rfc/rfc6265 [limit]
 */
const base = process.argv[2] ?? 'rfc/rfc6265';
const limit = Number(process.argv[3] ?? 1000);
const html = await extractCorpusFile(`${base}.html`);
const xml = await extractCorpusFile(`${base}.xml`);
const result = compare(html, xml);
process.stdout.write(`${base}: ${result.paired}/${result.total} blocks paired\n`);
for (const line of [...result.unpairedSections, ...result.problems].slice(0, limit)) process.stdout.write(`${line}\n`);
