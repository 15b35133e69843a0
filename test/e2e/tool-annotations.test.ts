import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { type AnyToolDefinition, annotationDisagreement } from '@toolmesh/core';
import { describe, expect, it } from 'vitest';

// Every first-party server, as built: its tools (what docs/servers/*.md is made from) and its version.
const servers = path.join(import.meta.dirname, '..', '..', 'servers');

describe('every first-party server', () => {
  for (const name of readdirSync(servers).sort()) {
    it(`${name}: each tool's annotations agree with its action classes`, async () => {
      const { toolReference } = (await import(
        pathToFileURL(path.join(servers, name, 'dist', 'server.js')).href
      )) as {
        toolReference: { tools: AnyToolDefinition[] };
      };
      expect(toolReference.tools.length).toBeGreaterThan(0);
      const disagreements = toolReference.tools.flatMap((tool) => {
        const problem = annotationDisagreement(tool);
        return problem ? [`${tool.name}: ${problem}`] : [];
      });
      expect(disagreements).toEqual([]);
    });

    it(`${name}: its built code finds the version its package.json holds`, async () => {
      const manifest = JSON.parse(readFileSync(path.join(servers, name, 'package.json'), 'utf8'));
      const { packageVersion } = await import('@toolmesh/core');
      expect(packageVersion(pathToFileURL(path.join(servers, name, 'dist', 'server.js')).href)).toBe(
        manifest.version,
      );
    });
  }
});
