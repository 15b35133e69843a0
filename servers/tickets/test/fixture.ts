import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createLogger } from '@toolmesh/core';
import { type ConnectedClient, callingAs, connectInMemory, toolExpectations } from '@toolmesh/core/testing';
import { createTicketsServer } from '../src/server.js';
import { SqliteTicketStore } from '../src/store/sqlite-store.js';

export function tempDir(prefix = 'toolmesh-tickets-'): string {
  return realpathSync(mkdtempSync(path.join(os.tmpdir(), prefix)));
}

export interface TicketsFixture extends ConnectedClient {
  dir: string;
  file: string;
  store: SqliteTicketStore;
  ok<T = Record<string, unknown>>(name: string, args?: Record<string, unknown>): Promise<T>;
  fails(name: string, args?: Record<string, unknown>): Promise<string>;
  /** Calls with a request `_meta` agent, as the aggregator does. */
  as(agent: string, name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
}

export async function ticketsFixture(
  options: { workspaces?: string[]; maxDelegationDepth?: number } = {},
): Promise<TicketsFixture> {
  const dir = tempDir();
  const file = path.join(dir, 'tickets.db');
  const store = new SqliteTicketStore(file, {
    ...(options.maxDelegationDepth !== undefined && { maxDelegationDepth: options.maxDelegationDepth }),
  });
  const server = createTicketsServer({
    store,
    workspaces: options.workspaces ?? ['alpha', 'beta'],
    log: createLogger({ level: 'error', scope: 'test' }),
  });
  // Calls come named, as toolmesh names each session's: 'tester' unless a test names another.
  const client = callingAs(await connectInMemory(server), 'tester');
  const { ok, fails, as } = toolExpectations(client);
  return {
    ...client,
    dir,
    file,
    store,
    ok,
    fails,
    as,
    close: async () => {
      await client.close();
      store.shutdown();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
