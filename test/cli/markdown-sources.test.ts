import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Rig } from '../helpers/rig.js';

/**
 * A user maps an explainer written in Markdown (a `.md` file: no content type needed) and a draft at a
 * raw-file URL (served as text/plain): queries find their sections and cite them at the ids GitHub
 * gives the headings, and `show` opens a cited section.
 */
test('Markdown sources are built, queried and shown by section', async () => {
  const rig = new Rig();
  try {
    rig.write({
      'explainer.md':
        '# Storage Buckets\n\n## Introduction\n\nBuckets group storage.\n\n## Eviction order\n\n' +
        'When storage pressure rises, the user agent evicts the least recently used bucket first.\n\n' +
        '## Security Considerations\n\nBuckets are not a security boundary.\n',
      'draft.md': '---\ntitle: Widget Protocol\n---\n\n# Negotiation {#negotiation}\n\nPeers MUST negotiate the widget version first.\n',
      'map.json': JSON.stringify([
        { sourceUrl: 'https://github.com/WICG/storage-buckets/blob/main/explainer.md', localPath: 'explainer.md' },
        { sourceUrl: 'https://raw.githubusercontent.com/example/widget/main/draft.md', localPath: 'draft.md', contentType: 'text/plain' },
      ]),
    });
    const build = await rig.exec(['build', '--map', 'map.json', '--json']);
    assert.equal(build.code, 0, build.stdout + build.stderr);

    const evict = await rig.exec(['query', 'which bucket is evicted first', '--json']);
    assert.equal(evict.code, 0, evict.stderr);
    const cited = (result: typeof evict): string => {
      const { sourceUrl, fragment } = (result.json!.data!.hits[0] as { citation: { sourceUrl: string; fragment: string } }).citation;
      return `${sourceUrl}#${fragment}`;
    };
    assert.equal(cited(evict), 'https://github.com/WICG/storage-buckets/blob/main/explainer.md#eviction-order');

    const negotiate = await rig.exec(['query', 'widget version negotiation', '--json']);
    assert.equal(cited(negotiate), 'https://raw.githubusercontent.com/example/widget/main/draft.md#negotiation');

    const shown = await rig.exec(['show', 'https://github.com/WICG/storage-buckets/blob/main/explainer.md#security-considerations']);
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, /Security Considerations/);
    assert.match(shown.stdout, /Buckets are not a security boundary\./);
    assert.doesNotMatch(shown.stdout, /least recently used/, 'show prints the cited section, not its neighbours');
  } finally {
    rig.cleanup();
  }
});

/**
 * An id a Markdown document gives in raw HTML (`<a name="md001"></a>` over a heading, as markdownlint's
 * rule list and many READMEs write them for links from elsewhere) is one GitHub keeps: `show` opens it.
 */
test('show opens the section a raw HTML anchor over its heading names', async () => {
  const rig = new Rig();
  try {
    rig.write({
      'Rules.md':
        '# Rules\n\n<a name="md001"></a>\n\n## `MD001` - Heading levels should only increment by one level at a time\n\n' +
        'Aliases: heading-increment\n\n<a name="md003"></a>\n\n## `MD003` - Heading style\n\nAliases: heading-style\n',
      'map.json': JSON.stringify([
        { sourceUrl: 'https://github.com/DavidAnson/markdownlint/blob/main/doc/Rules.md', localPath: 'Rules.md' },
      ]),
    });
    const build = await rig.exec(['build', '--map', 'map.json', '--json']);
    assert.equal(build.code, 0, build.stdout + build.stderr);
    const shown = await rig.exec(['show', 'https://github.com/DavidAnson/markdownlint/blob/main/doc/Rules.md#md001']);
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, /MD001 - Heading levels should only increment/);
    assert.match(shown.stdout, /Aliases: heading-increment/);
    assert.doesNotMatch(shown.stdout, /heading-style/, 'the anchor names its own section, not the next');
  } finally {
    rig.cleanup();
  }
});
