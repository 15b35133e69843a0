import type { AnyToolDefinition } from '@toolmesh/core';
import type { FsEngine } from '../files/engine.js';
import { checkpointRead, checkpointWrite } from './checkpoint.js';
import { copyFile } from './copy.js';
import { viewImage } from './image.js';
import { listDir, readFile, statFile } from './inspect.js';
import { applyPatch } from './patch.js';
import { searchFiles, searchText } from './search.js';

export const FS_TOOLS: readonly AnyToolDefinition<FsEngine>[] = [
  statFile,
  readFile,
  listDir,
  searchFiles,
  searchText,
  viewImage,
  applyPatch,
  copyFile,
  checkpointWrite,
  checkpointRead,
];
