import { annotationDisagreement } from '@toolmesh/core';
import { describe, expect, it } from 'vitest';
import { OWN_TOOL_NAMES } from '../src/registry/naming.js';
import { AGGREGATOR_TOOLS } from '../src/tools/index.js';

/**
 * toolmesh's own tools whose class is chosen for policy, not read off what they do: call_tool's
 * target's own classes govern the call it routes, and leaving plan mode is asked of a person in
 * every mode, changing nothing but the calling session's mode.
 */
const CLASSED_FOR_POLICY: string[] = [OWN_TOOL_NAMES.call, OWN_TOOL_NAMES.exitPlanMode];

describe("toolmesh's own tools", () => {
  it('have annotations that agree with their action classes, but for the two classed for policy', () => {
    const disagreements = AGGREGATOR_TOOLS.flatMap((tool) => {
      const problem = annotationDisagreement(tool);
      return problem ? [tool.name] : [];
    });
    expect(disagreements.sort()).toEqual([...CLASSED_FOR_POLICY].sort());
  });
});
