import { toolDefiner } from '@toolmesh/core';
import type { CodeGraph } from '../graph/code-graph.js';

export const defineTool = toolDefiner<CodeGraph>();

/** Every code-graph tool only reads: the graph it keeps lives in the data directory, not the roots. */
export const READ_ONLY = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
} as const;
