import { extractCorpusFile } from './dist/test/extract/helpers.js';
const flat = (s) => s.flatMap((x) => [x, ...flat(x.steps ?? [])]);
for (const f of ['whatwg/dom.html','whatwg/url.html','whatwg/mimesniff.html','whatwg/infra.html','w3c/index.html','w3c/WD.html','w3c/Overview.html','w3c/2016-11-PR.html']) {
  const doc = await extractCorpusFile(f);
  const algs = doc.blocks.filter(b => b.kind === 'algorithm');
  const tables = doc.blocks.filter(b => b.kind === 'table');
  const emptyTables = tables.filter(t => t.header.length + t.rows.length === 0).length;
  const mismatch = algs.filter(a => flat(a.steps).length !== a.text.split('\n').filter(l => /^ *\d+(\.\d+)*\. /.test(l)).length).length;
  const ids = algs.reduce((n,a)=>n+flat(a.steps).filter(s=>s.id).length,0);
  console.log(f, 'alg', algs.length, 'steps', algs.reduce((n,a)=>n+flat(a.steps).length,0), 'ids', ids, 'mismatch', mismatch, 'tables', tables.length, 'empty', emptyTables, 'spans', tables.filter(t=>t.spans).length);
}
