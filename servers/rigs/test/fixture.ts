import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createLogger } from '@toolmesh/core';
import { type ConnectedClient, connectInMemory, resultText, toolExpectations } from '@toolmesh/core/testing';
import { RigsEngine, type RigsEngineOptions } from '../src/rigs/rigs-engine.js';
import { createRigsServer } from '../src/server.js';

export function tempDir(prefix = 'toolmesh-rigs-'): string {
  return realpathSync(mkdtempSync(path.join(os.tmpdir(), prefix)));
}

export interface RigsFixture {
  dir: string;
  dataDir: string;
  rigs: RigsEngine;
  /** A new MCP session (an in-memory client) on the same rigs. */
  connect(): Promise<Session>;
  close(): Promise<void>;
}

export interface Session extends ConnectedClient {
  ok<T = Record<string, unknown>>(name: string, args?: Record<string, unknown>): Promise<T>;
  fails(name: string, args?: Record<string, unknown>): Promise<string>;
  /** A call with the aggregator's conversation key in the request `_meta`. */
  inConversation(conversation: string, name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
}

export async function rigsFixture(
  options: Partial<RigsEngineOptions> = {},
  workspaces = ['alpha', 'beta'],
): Promise<RigsFixture> {
  const dir = tempDir();
  const dataDir = path.join(dir, 'data');
  const rigs = new RigsEngine({ dataDir, log: createLogger({ level: 'error', scope: 'test' }), ...options });
  await rigs.sweep();
  const sessions: ConnectedClient[] = [];
  return {
    dir,
    dataDir,
    rigs,
    async connect() {
      const client = await connectInMemory(
        createRigsServer({
          rigs,
          workspaces,
          identity: 'tester',
          log: createLogger({ level: 'error', scope: 'test' }),
        }),
      );
      sessions.push(client);
      const { ok, fails } = toolExpectations(client);
      return {
        ...client,
        ok,
        fails,
        inConversation: async (conversation, name, args = {}) =>
          (await client.client.callTool({
            name,
            arguments: args,
            _meta: { 'toolmesh/conversation': conversation },
          })) as CallToolResult,
      };
    },
    async close() {
      for (const session of sessions) await session.close();
      await rigs.shutdown();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export { resultText };

/** Waits for `condition`, checking every 50 ms, at most `ms`; then fails naming `what`. */
export async function until(condition: () => boolean, what: string, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
