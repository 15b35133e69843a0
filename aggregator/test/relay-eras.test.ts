import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import {
  connectHttpClient,
  connectModernHttpClient,
  resultText,
  type SpawnedHttpServer,
  spawnHttpServer,
} from '@toolmesh/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture, TOOLMESH_BIN } from './harness.js';

// What a downstream server asks its client (elicitation, sampling) during a call reaches a 2025
// client as before; for a 2026-07-28 client's call it is refused with a message that says why,
// and never reaches another client.

let folder: string;
let server: SpawnedHttpServer;
let token: string;

beforeAll(async () => {
  folder = mkdtempSync(path.join(os.tmpdir(), 'toolmesh-relay-eras-'));
  const config = path.join(folder, 'toolmesh.json');
  writeFileSync(config, JSON.stringify({ mcpServers: { fixture: fixture('fixture') } }));
  server = await spawnHttpServer(process.execPath, [TOOLMESH_BIN, 'serve', '--config', config], {
    env: { TOOLMESH_DATA_DIR: path.join(folder, 'data'), HOME: folder, REDIS_URL: '' },
    cwd: folder,
    ms: 60_000,
  });
  token = /Bearer (tm_[\w-]+)/.exec(server.stderr())?.[1] as string;
});
afterAll(async () => {
  await server?.close();
  rmSync(folder, { recursive: true, force: true });
});

describe("a downstream server's requests to its client, in each era", () => {
  it('reach a 2025 client, and are refused for a 2026-07-28 client, saying why', async () => {
    const legacy = await connectHttpClient(server.url, {
      token,
      capabilities: { elicitation: { form: {} } },
    });
    let legacyAsked = 0;
    legacy.client.setRequestHandler(ElicitRequestSchema, async () => {
      legacyAsked += 1;
      return { action: 'accept', content: { colour: 'blue' } };
    });
    const modern = await connectModernHttpClient(server.url, {
      token,
      capabilities: { elicitation: { form: {} }, sampling: {} },
    });
    try {
      expect(resultText(await legacy.call('fixture__ask_user'))).toBe('accept: blue');
      expect(legacyAsked).toBe(1);

      for (const [tool, capability] of [
        ['fixture__ask_user', 'elicitation'],
        ['fixture__ask_model', 'sampling'],
      ] as const) {
        const refused = await modern.call(tool);
        expect(refused.isError, resultText(refused)).toBe(true);
        expect(resultText(refused)).toMatch(
          new RegExp(
            `speaks MCP 2026-07-28, and toolmesh does not yet pass a server's ${capability} request`,
          ),
        );
      }
      // The legacy client of the same token, connected all along, was not asked in its place.
      expect(legacyAsked).toBe(1);
    } finally {
      await legacy.close();
      await modern.close();
    }
  });
});
