import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ClientOptions } from '@modelcontextprotocol/sdk/client/index.js';
import { createLogger } from '@toolmesh/core';
import { type ConnectedClient, connectInMemory, toolExpectations } from '@toolmesh/core/testing';
import { FeedFetcher } from '../src/feeds/fetcher.js';
import { FeedReader } from '../src/feeds/reader.js';
import { FeedStore } from '../src/feeds/store.js';
import { createFeedsServer } from '../src/server.js';

export function tempDir(prefix = 'toolmesh-feeds-'): string {
  return realpathSync(mkdtempSync(path.join(os.tmpdir(), prefix)));
}

export interface FeedsFixture extends ConnectedClient {
  dir: string;
  reader: FeedReader;
  ok<T = Record<string, unknown>>(name: string, args?: Record<string, unknown>): Promise<T>;
  fails(name: string, args?: Record<string, unknown>): Promise<string>;
}

/** A feeds server over a real SQLite file in a temp folder, with a real SDK client connected in memory. */
export async function feedsFixture(
  options: { allowPrivateNetwork?: boolean; timeoutMs?: number; client?: ClientOptions } = {},
): Promise<FeedsFixture> {
  const dir = tempDir();
  const log = createLogger({ level: 'error', scope: 'test' });
  const reader = new FeedReader({
    store: new FeedStore(path.join(dir, 'feeds.db')),
    fetcher: new FeedFetcher({
      allowPrivateNetwork: options.allowPrivateNetwork ?? true,
      timeoutMs: options.timeoutMs ?? 5000,
      maxBytes: 4 * 2 ** 20,
    }),
    log,
  });
  const client = await connectInMemory(createFeedsServer({ reader, log }), options.client);
  const { ok, fails } = toolExpectations(client);
  return {
    ...client,
    dir,
    reader,
    ok,
    fails,
    close: async () => {
      await client.close();
      await reader.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
