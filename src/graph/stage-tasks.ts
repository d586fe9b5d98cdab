import type { ExtractInput } from '../extract/extract.js';
import type { ChunkOptions } from '../chunk/chunker.js';
import type { EvidenceDocument } from '../document/types.js';
import type { InspectTask } from '../inspect/inspect.js';
import { makeArtifact, artifactBytes, type Artifact } from '../store/artifact.js';

/**
 * The pure, CPU-bound work of the build, as messages a worker thread can run: bytes and options in,
 * artifact bytes out. The same function runs in-process when there is one job, so a one-worker build
 * and a parallel build produce the same bytes by construction.
 */
export { DOCUMENT_FORMAT_VERSION, CHUNKS_FORMAT_VERSION } from '../rule-versions.js';
import { DOCUMENT_FORMAT_VERSION, CHUNKS_FORMAT_VERSION } from '../rule-versions.js';

export type StageTask =
  | { stage: 'extract'; input: ExtractInput }
  | { stage: 'chunk'; documentId: string; documentBytes: Uint8Array; options: ChunkOptions }
  // The checks of artifacts restored from the remote cache that need only their bytes (JSON inspections out).
  | { stage: 'inspect-restored'; tasks: InspectTask[] };

export async function runStageTask(task: StageTask): Promise<string> {
  switch (task.stage) {
    case 'extract': {
      const { extractDocument } = await import('../extract/extract.js');
      const document = await extractDocument(task.input);
      return artifactBytes(makeArtifact('document', DOCUMENT_FORMAT_VERSION, document));
    }
    case 'chunk': {
      const { chunkDocument } = await import('../chunk/chunker.js');
      const artifact = JSON.parse(Buffer.from(task.documentBytes).toString('utf8')) as Artifact<EvidenceDocument>;
      const chunks = chunkDocument(artifact.payload, task.options);
      return artifactBytes(makeArtifact('document-chunks', CHUNKS_FORMAT_VERSION, { documentId: task.documentId, chunks }));
    }
    case 'inspect-restored': {
      const { inspectRestored } = await import('../inspect/inspect.js');
      return JSON.stringify(task.tasks.map(inspectRestored));
    }
  }
}
