import * as fs from 'node:fs';
import { SEGMENT_FILE_NAME } from '../../src/index/index-layout.js';
import type { Rig } from './rig.js';

/** The search-index segment files in a workspace's chunks folder, sorted. */
export function segmentFiles(rig: Rig): string[] {
  return fs
    .readdirSync(rig.path('chunks'))
    .filter((name) => SEGMENT_FILE_NAME.test(name))
    .sort();
}
