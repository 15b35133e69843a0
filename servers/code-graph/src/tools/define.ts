import { toolDefiner } from '@toolmesh/core';
import type { CodeGraph } from '../graph/code-graph.js';

export const defineTool = toolDefiner<CodeGraph>();

/** Every code-graph tool only reads: the graph it keeps lives in the data directory, not the roots. */
export { READ_ONLY_ANNOTATIONS as READ_ONLY } from '@toolmesh/core';
