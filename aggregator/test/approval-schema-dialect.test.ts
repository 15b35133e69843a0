import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { resultText } from '@toolmesh/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from './harness.js';

const CATALOG_SERVER = fileURLToPath(new URL('./fixtures/catalog-server.mjs', import.meta.url));

let folder: string;
let replay: ChildProcess;
let harness: Harness;

beforeAll(async () => {
  folder = mkdtempSync(path.join(os.tmpdir(), 'toolmesh-dialect-'));
  const catalogs = path.join(folder, 'catalogs');
  mkdirSync(catalogs);
  // A tuple as zod 4 writes it, in JSON Schema 2020-12 (the MCP default dialect): `items: false`
  // there means no items beyond the prefix, where draft-07 would read it as no items at all.
  writeFileSync(
    path.join(catalogs, 'maps.json'),
    JSON.stringify({
      server: 'maps',
      tools: [
        {
          name: 'move_to',
          description: 'Move the marker to a point.',
          inputSchema: {
            $schema: 'https://json-schema.org/draft/2020-12/schema',
            type: 'object',
            properties: {
              point: {
                type: 'array',
                prefixItems: [{ type: 'number' }, { type: 'number' }],
                items: false,
                minItems: 2,
                maxItems: 2,
              },
            },
            required: ['point'],
            additionalProperties: false,
          },
        },
      ],
    }),
  );
  replay = spawn(process.execPath, [CATALOG_SERVER, catalogs], { stdio: ['ignore', 'ignore', 'pipe'] });
  const base = await new Promise<string>((resolve, reject) => {
    replay.stderr?.on('data', (chunk: Buffer) => {
      const found = /listening on (\S+)/.exec(chunk.toString());
      if (found) resolve(found[1] as string);
    });
    replay.once('exit', () => reject(new Error('catalog server exited')));
  });
  harness = await startHarness({
    mcpServers: { maps: { url: `${base}/maps/mcp`, type: 'streamable-http' } },
    toolPolicy: { maps__move_to: { requiresApproval: true } },
    approvalTimeoutMs: 5000,
  });
});
afterAll(async () => {
  await harness?.close();
  replay?.kill('SIGKILL');
  rmSync(folder, { recursive: true, force: true });
});

describe('the argument check before an approval', () => {
  it('reads a JSON Schema 2020-12 tuple as 2020-12 does, so a call that fits is put to the person', async () => {
    const connected = await harness.connect({ capabilities: { elicitation: { form: {} } } });
    const asked: string[] = [];
    connected.client.setRequestHandler(ElicitRequestSchema, (request) => {
      asked.push(request.params.message);
      return { action: 'accept', content: {} };
    });
    const moved = await connected.call('maps__move_to', { point: [1, 2] });
    expect(resultText(moved)).toBe('maps ran move_to');
    expect(asked).toHaveLength(1);
    const misfit = await connected.call('maps__move_to', { point: [1, 2, 3] });
    expect(resultText(misfit)).toMatch(/^maps__move_to was not run, and no one was asked to approve it/);
    expect(asked).toHaveLength(1);
  });
});
