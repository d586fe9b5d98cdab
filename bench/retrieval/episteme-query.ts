/** One cold query through the library (no CLI): `node episteme-query.js INDEX TERM`. Prints the response as JSON. */
import { fileSource, loadSearchIndex } from '../../src/index/index-reader.js';
import { runQuery } from '../../src/query/query.js';

const [file, term] = process.argv.slice(2);
const index = loadSearchIndex(fileSource(file!), file!);
const response = runQuery(index, { terms: [term!], limit: 10, offset: 0, maxSnippetChars: 400, maxTotalChars: 8000 });
process.stdout.write(JSON.stringify(response) + '\n');
