import { Client, type ClientOptions } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

const CLIENT_INFO = { name: 'toolmesh-test', version: '0.0.0' };

export interface ConnectedClient {
  client: Client;
  /** Calls a tool and returns its result typed as a tool result. */
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  close(): Promise<void>;
}

function wrap(client: Client, close: () => Promise<void>): ConnectedClient {
  return {
    client,
    call: async (name, args = {}) => (await client.callTool({ name, arguments: args })) as CallToolResult,
    close,
  };
}

/** A real SDK client connected to `server` through an in-memory transport pair. */
export async function connectInMemory(server: Server, options?: ClientOptions): Promise<ConnectedClient> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client(CLIENT_INFO, options);
  await server.connect(serverSide);
  await client.connect(clientSide);
  return wrap(client, async () => {
    await client.close();
    await server.close();
  });
}

export interface SpawnedClient extends ConnectedClient {
  /** What the server wrote to stderr so far. */
  stderr(): string;
  pid: number | undefined;
}

/** Spawns `command args` and speaks MCP to it over its real stdin and stdout. */
export async function spawnStdioClient(
  command: string,
  args: string[],
  options: { env?: Record<string, string>; cwd?: string; client?: ClientOptions } = {},
): Promise<SpawnedClient> {
  const transport = new StdioClientTransport({
    command,
    args,
    ...(options.cwd && { cwd: options.cwd }),
    env: { ...(process.env as Record<string, string>), ...options.env },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const client = new Client(CLIENT_INFO, options.client);
  try {
    await client.connect(transport);
  } catch (error) {
    throw new Error(
      `could not start ${command} ${args.join(' ')}: ${(error as Error).message}\nstderr:\n${stderr}`,
    );
  }
  return Object.assign(
    wrap(client, () => client.close()),
    { stderr: () => stderr, pid: transport.pid ?? undefined },
  );
}

/** A real SDK client over Streamable HTTP. */
/** A client over Streamable HTTP; `token` is sent as a bearer token on every request. */
export async function connectHttpClient(
  url: string,
  options?: ClientOptions & { token?: string },
): Promise<ConnectedClient> {
  const { token, ...clientOptions } = options ?? {};
  const client = new Client(CLIENT_INFO, clientOptions);
  const requestInit = token ? { headers: { authorization: `Bearer ${token}` } } : undefined;
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), { ...(requestInit && { requestInit }) }),
  );
  return wrap(client, () => client.close());
}

/**
 * For tests: `ok` calls a tool that must succeed and returns its structured content, `fails` one
 * that must fail and returns its message; `as` calls as an identity the way the aggregator names
 * its caller (`toolmesh/agent` in the request `_meta`), and `asOk` does so for a call that must succeed.
 */
export function toolExpectations(client: ConnectedClient) {
  const succeeded = <T>(name: string, result: CallToolResult): T => {
    if (result.isError) throw new Error(`${name} failed: ${resultText(result)}`);
    return result.structuredContent as T;
  };
  const as = async (agent: string, name: string, args: Record<string, unknown> = {}) =>
    (await client.client.callTool({
      name,
      arguments: args,
      _meta: { 'toolmesh/agent': agent },
    })) as CallToolResult;
  return {
    ok: async <T = Record<string, unknown>>(name: string, args: Record<string, unknown> = {}): Promise<T> =>
      succeeded<T>(name, await client.call(name, args)),
    fails: async (name: string, args: Record<string, unknown> = {}): Promise<string> => {
      const result = await client.call(name, args);
      if (!result.isError) throw new Error(`${name} unexpectedly succeeded: ${resultText(result)}`);
      return resultText(result);
    },
    as,
    asOk: async <T = Record<string, unknown>>(
      agent: string,
      name: string,
      args: Record<string, unknown> = {},
    ): Promise<T> => succeeded<T>(name, await as(agent, name, args)),
  };
}

/** The text blocks of a tool result, joined. */
export function resultText(result: CallToolResult): string {
  return result.content
    .filter((block): block is { type: 'text'; text: string } => block.type === 'text')
    .map((block) => block.text)
    .join('\n');
}

/**
 * For tests: every page of one budgeted call, following `nextCursor` while the answer is
 * truncated. Fails on a cursor handed out twice or past `maxPages`, where a client would loop.
 */
export async function everyPage<T extends { truncated: boolean; nextCursor?: string }>(
  call: (args: Record<string, unknown>) => Promise<T>,
  args: Record<string, unknown>,
  maxPages = 1000,
): Promise<T[]> {
  const pages: T[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  do {
    const page = await call({ ...args, ...(cursor !== undefined && { cursor }) });
    pages.push(page);
    cursor = page.truncated ? page.nextCursor : undefined;
    if (cursor !== undefined && seen.has(cursor)) {
      throw new Error(`page ${pages.length} hands back a cursor already followed: ${cursor}`);
    }
    if (cursor !== undefined) seen.add(cursor);
    if (pages.length > maxPages) throw new Error(`still truncated after ${maxPages} pages`);
  } while (cursor !== undefined);
  return pages;
}

export { type RawMessage, type RawStdioPeer, spawnRawStdio } from './raw-stdio.js';
export { SECRET_SAMPLES, type SecretSample } from './secret-samples.js';
