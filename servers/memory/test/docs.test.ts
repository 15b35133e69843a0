import { readFileSync } from 'node:fs';
import { renderToolReference } from '@toolmesh/core';
import { describe, expect, it } from 'vitest';
import { toolReference } from '../src/server.js';

describe('docs/servers/memory.md', () => {
  it('is the reference generated from the tool definitions (regenerate with pnpm docs)', () => {
    const committed = readFileSync(new URL('../../../docs/servers/memory.md', import.meta.url), 'utf8');
    expect(committed).toBe(renderToolReference(toolReference, toolReference.tools));
  });

  it('declares the 14 contract tools, all workspace-scoped, writes memoryWrite and reads read', () => {
    expect(toolReference.tools.map((tool) => tool.name).sort()).toEqual(
      [
        'search_memory',
        'propose_fact',
        'supersede_fact',
        'propose_policy',
        'supersede_policy',
        'list_policies',
        'list_memory_domains',
        'record_observation',
        'get_my_notes',
        'update_my_notes',
        'remember',
        'consolidate_memory',
        'harmonize_memory',
        'list_memory_conflicts',
      ].sort(),
    );
    for (const tool of toolReference.tools) {
      expect(tool.workspaceScoped).toBe(true);
      expect(tool.actions).toEqual([tool.annotations.readOnlyHint ? 'read' : 'memoryWrite']);
    }
  });
});
