import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import {
  connectHttpClient,
  connectModernHttpClient,
  resultText,
  type SpawnedHttpServer,
} from '@toolmesh/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture, serveToolmeshHttp } from './harness.js';

// What a downstream server asks its client (elicitation, sampling) during a call reaches a 2025
// client as a request, as before, and a 2026-07-28 client as a round trip of its call (see
// relay-round-trips.test.ts); it never reaches another client.

let folder: string;
let server: SpawnedHttpServer;
let token: string;

beforeAll(async () => {
  folder = mkdtempSync(path.join(os.tmpdir(), 'toolmesh-relay-eras-'));
  const config = path.join(folder, 'toolmesh.json');
  writeFileSync(config, JSON.stringify({ mcpServers: { fixture: fixture('fixture') } }));
  ({ server, token } = await serveToolmeshHttp(config, folder));
});
afterAll(async () => {
  await server?.close();
  rmSync(folder, { recursive: true, force: true });
});

describe("a downstream server's requests to its client, in each era", () => {
  it('reach a 2025 client as requests and a 2026-07-28 client as round trips, each its own', async () => {
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
    const modernAsked: string[] = [];
    modern.client.setRequestHandler('elicitation/create', async () => {
      modernAsked.push('elicitation');
      return { action: 'accept', content: { colour: 'green' } };
    });
    modern.client.setRequestHandler('sampling/createMessage', async () => {
      modernAsked.push('sampling');
      return { role: 'assistant', content: { type: 'text', text: 'hi' }, model: 'test-model' };
    });
    try {
      expect(resultText(await legacy.call('fixture__ask_user'))).toBe('accept: blue');
      expect(legacyAsked).toBe(1);
      expect(resultText(await modern.call('fixture__ask_user'))).toBe('accept: green');
      expect(resultText(await modern.call('fixture__ask_model'))).toBe('model said: hi');
      expect(modernAsked).toEqual(['elicitation', 'sampling']);
      // The legacy client of the same token, connected all along, was not asked in its place.
      expect(legacyAsked).toBe(1);
    } finally {
      await legacy.close();
      await modern.close();
    }
  });
});
