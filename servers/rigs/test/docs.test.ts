import { readFileSync } from 'node:fs';
import { renderToolReference } from '@toolmesh/core';
import { describe, expect, it } from 'vitest';
import { toolReference } from '../src/server.js';

describe('docs/servers/rigs.md', () => {
  it('is the reference generated from the tool definitions (regenerate with pnpm docs)', () => {
    const committed = readFileSync(new URL('../../../docs/servers/rigs.md', import.meta.url), 'utf8');
    expect(committed).toBe(renderToolReference(toolReference, toolReference.tools));
  });
});
