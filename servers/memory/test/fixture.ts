import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createLogger } from '@toolmesh/core';
import { type ConnectedClient, callingAs, connectInMemory, toolExpectations } from '@toolmesh/core/testing';
import { Redis } from 'ioredis';
import type { EmbeddingProvider } from '../src/embeddings/provider.js';
import type { MemoryEngine } from '../src/engine.js';
import type { HotLimits } from '../src/hot/hot-memory.js';
import { createMemoryServer, openMemoryEngine } from '../src/server.js';

export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

export function tempDir(prefix = 'toolmesh-memory-'): string {
  return realpathSync(mkdtempSync(path.join(os.tmpdir(), prefix)));
}

/** A clock tests move by hand: nothing sleeps. */
export class TestClock {
  constructor(public ms = Date.parse('2026-03-02T09:00:00.000Z')) {}
  readonly now = () => this.ms;
  advance(ms: number): void {
    this.ms += ms;
  }
}

/** A key prefix no other test run uses, and a way to delete its keys afterwards. */
export function redisPrefix(): { prefix: string; cleanup(): Promise<void> } {
  const prefix = `toolmesh-test:${process.pid}:${Math.random().toString(36).slice(2)}`;
  return {
    prefix,
    async cleanup() {
      const redis = new Redis(REDIS_URL);
      try {
        let cursor = '0';
        do {
          const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
          if (keys.length > 0) await redis.del(...keys);
          cursor = next;
        } while (cursor !== '0');
      } finally {
        redis.disconnect();
      }
    },
  };
}

/** A loopback port nothing listens on. */
export async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export interface MemoryFixture extends ConnectedClient {
  dir: string;
  file: string;
  engine: MemoryEngine;
  clock: TestClock;
  ok<T = Record<string, unknown>>(name: string, args?: Record<string, unknown>): Promise<T>;
  fails(name: string, args?: Record<string, unknown>): Promise<string>;
  /** Calls with a request `_meta` agent, as the aggregator does. */
  as(agent: string, name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  asOk<T = Record<string, unknown>>(agent: string, name: string, args?: Record<string, unknown>): Promise<T>;
}

export interface FixtureOptions {
  workspaces?: string[];
  redisUrl?: string;
  redisPrefix?: string;
  hotLimits?: HotLimits;
  embedder?: EmbeddingProvider;
  file?: string;
}

export async function memoryFixture(options: FixtureOptions = {}): Promise<MemoryFixture> {
  const dir = tempDir();
  const file = options.file ?? path.join(dir, 'memory.db');
  const clock = new TestClock();
  const log = createLogger({ level: 'error', scope: 'test' });
  const engine = openMemoryEngine({
    file,
    log,
    clock: clock.now,
    ...(options.redisUrl !== undefined && {
      redisUrl: options.redisUrl,
      redisPrefix: options.redisPrefix ?? 'x',
    }),
    ...(options.hotLimits && { hotLimits: options.hotLimits }),
    ...(options.embedder && { embedder: options.embedder }),
  });
  const server = createMemoryServer({
    engine,
    workspaces: options.workspaces ?? ['alpha', 'beta'],
    log,
  });
  // Calls come named, as toolmesh names each session's: 'tester' unless a test names another.
  const client = callingAs(await connectInMemory(server), 'tester');
  return {
    ...client,
    dir,
    file,
    engine,
    clock,
    ...toolExpectations(client),
    close: async () => {
      await client.close();
      await engine.semantic.schedule();
      await engine.shutdown();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
