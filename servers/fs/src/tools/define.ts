import { toolDefiner } from '@toolmesh/core';
import type { FsEngine } from '../workspace/engine.js';

export const defineTool = toolDefiner<FsEngine>();

/** The annotations of a tool that only reads inside the roots. */
export const READ_ONLY = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
} as const;
