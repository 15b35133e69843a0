import type { AnyToolDefinition } from '@toolmesh/core';
import type { CodeGraph } from '../graph/code-graph.js';
import { codeCallees, codeCallers } from './calls.js';
import { codeImpact } from './impact.js';
import { indexStatus, reindex } from './indexing.js';
import { repoMap } from './map.js';
import { readSymbol } from './source.js';
import { codeSymbol, searchCode } from './symbols.js';
import { codeTrace } from './trace.js';

export const CODE_GRAPH_TOOLS: readonly AnyToolDefinition<CodeGraph>[] = [
  searchCode,
  codeSymbol,
  codeCallers,
  codeCallees,
  codeImpact,
  codeTrace,
  readSymbol,
  repoMap,
  indexStatus,
  reindex,
];
