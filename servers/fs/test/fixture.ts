import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ClientOptions } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createLogger } from '@toolmesh/core';
import { type ConnectedClient, connectInMemory, resultText } from '@toolmesh/core/testing';
import { CheckpointStore, createFsServer, type FsServerOptions } from '../src/server.js';

export interface FsFixture extends ConnectedClient {
  /** A real temporary folder, the first root. */
  root: string;
  /** A folder beside the root, outside it. */
  outside: string;
  base: string;
  checkpoints: CheckpointStore;
  write(relative: string, content: string | Buffer): string;
  /** Calls a tool that must succeed, returning its structured content. */
  ok<T = Record<string, unknown>>(name: string, args?: Record<string, unknown>): Promise<T>;
  /** Calls a tool that must fail, returning its error text. */
  fails(name: string, args?: Record<string, unknown>): Promise<string>;
}

export async function fsFixture(
  options: Partial<FsServerOptions> & {
    client?: ClientOptions;
    extraRoots?: string[];
    noRoots?: boolean;
  } = {},
): Promise<FsFixture> {
  const base = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolmesh-fs-')));
  const root = path.join(base, 'root');
  const outside = path.join(base, 'outside');
  mkdirSync(root);
  mkdirSync(outside);
  const checkpoints = new CheckpointStore(path.join(base, 'data', 'checkpoints.sqlite'));
  const server = createFsServer({
    roots: options.noRoots ? [] : [root, ...(options.extraRoots ?? [])],
    checkpoints,
    log: createLogger({ level: 'error', sink: () => undefined }),
    ...options,
  });
  const connected = await connectInMemory(server, options.client);
  const describe = (name: string, result: CallToolResult) => `${name}: ${resultText(result)}`;
  return {
    ...connected,
    root,
    outside,
    base,
    checkpoints,
    write(relative, content) {
      const file = path.join(root, relative);
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, content);
      return file;
    },
    async ok(name, args = {}) {
      const result = await connected.call(name, args);
      if (result.isError) throw new Error(`expected success, got ${describe(name, result)}`);
      return result.structuredContent as never;
    },
    async fails(name, args = {}) {
      const result = await connected.call(name, args);
      if (!result.isError)
        throw new Error(`expected an error, got ${JSON.stringify(result.structuredContent)}`);
      return resultText(result);
    },
    async close() {
      await connected.close();
      checkpoints.close();
      rmSync(base, { recursive: true, force: true });
    },
  };
}
