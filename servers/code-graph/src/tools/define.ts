import { type ToolDefinition, toolDefiner } from '@toolmesh/core';
import type { z } from 'zod';
import type { CodeGraph } from '../graph/code-graph.js';

const define = toolDefiner<CodeGraph>();

/**
 * A code-graph tool. Each answer tells the graph it was asked: what answering allocated (a
 * repo_map or search of this repository leaves about 9 MiB of heap) is collected once the server
 * is quiet, as after an index, instead of staying resident until the next burst of work.
 */
export function defineTool<Input extends z.ZodObject, Output extends z.ZodObject>(
  definition: ToolDefinition<CodeGraph, Input, Output>,
): ToolDefinition<CodeGraph, Input, Output> {
  return define({
    ...definition,
    async handle(input, context) {
      try {
        return await definition.handle(input, context);
      } finally {
        context.engine.answered();
      }
    },
  });
}

/** Every code-graph tool only reads: the graph it keeps lives in the data directory, not the roots. */
export { READ_ONLY_ANNOTATIONS as READ_ONLY } from '@toolmesh/core';
