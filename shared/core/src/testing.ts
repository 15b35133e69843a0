import { spawn } from 'node:child_process';
import {
  Client as ModernCapableClient,
  type ClientOptions as ModernClientOptions,
  StreamableHTTPClientTransport as ModernHttpClientTransport,
} from '@modelcontextprotocol/client';
import { StdioClientTransport as ModernStdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client, type ClientOptions } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { META_KEYS } from './actions.js';
import { fetchWithOwnSignal } from './fetch-with-own-signal.js';
import type { SessionServer } from './http-front.js';

const CLIENT_INFO = { name: 'toolmesh-test', version: '0.0.0' };

/** The protocol revision a modern client pins: with no fallback, a server that cannot speak it fails the test. */
export const MODERN_REVISION = '2026-07-28';

/** What a test does through a client of either SDK, whichever era it speaks. */
export interface ToolClient {
  /** Calls a tool and returns its result typed as a tool result; `meta` goes into the request's `_meta`. */
  call(name: string, args?: Record<string, unknown>, meta?: Record<string, unknown>): Promise<CallToolResult>;
  /** Every listed tool, and the list result's cache fields when the era has them. */
  listTools(): Promise<{ tools: Tool[]; ttlMs?: number; cacheScope?: string }>;
  close(): Promise<void>;
}

/**
 * `client` with its calls naming `agent` as their caller in `_meta`, as toolmesh names each
 * session's, unless a call gives its own `_meta`.
 */
export function callingAs<C extends ToolClient>(client: C, agent: string): C {
  return {
    ...client,
    call: (name, args, meta = { [META_KEYS.agent]: agent }) => client.call(name, args, meta),
  };
}

/** A v1 SDK client: it speaks the 2025 revisions, with `initialize` and a session. */
export interface ConnectedClient extends ToolClient {
  client: Client;
}

/** A client of the SDK's v2 packages pinned to 2026-07-28: no `initialize`, no session. */
export interface ModernClient extends ToolClient {
  client: ModernCapableClient;
}

interface CallingClient {
  callTool(request: {
    name: string;
    arguments: Record<string, unknown>;
    _meta?: Record<string, unknown>;
  }): Promise<unknown>;
  listTools(): Promise<unknown>;
}

function wrap<C extends CallingClient>(client: C, close: () => Promise<void>) {
  return {
    client,
    call: async (name: string, args: Record<string, unknown> = {}, meta?: Record<string, unknown>) =>
      (await client.callTool({ name, arguments: args, ...(meta && { _meta: meta }) })) as CallToolResult,
    listTools: async () =>
      (await client.listTools()) as { tools: Tool[]; ttlMs?: number; cacheScope?: string },
    close,
  };
}

const modernOptions = (options?: ModernClientOptions): ModernClientOptions => ({
  ...options,
  versionNegotiation: { mode: { pin: MODERN_REVISION } },
});

/** A real SDK client connected to `server` through an in-memory transport pair. */
export async function connectInMemory(
  server: SessionServer,
  options?: ClientOptions,
): Promise<ConnectedClient> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client(CLIENT_INFO, options);
  // A v2 server serves a 2025 session over the v1 transports as well.
  await (server as Server).connect(serverSide);
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

/** A v1 client over Streamable HTTP; `token` is sent as a bearer token on every request. */
export async function connectHttpClient(
  url: string,
  options?: ClientOptions & { token?: string },
): Promise<ConnectedClient> {
  const { token, ...clientOptions } = options ?? {};
  const client = new Client(CLIENT_INFO, clientOptions);
  const requestInit = token ? { headers: { authorization: `Bearer ${token}` } } : undefined;
  // The SDK hands one signal to every request, and Node's fetch would pile a listener per call on it.
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      fetch: fetchWithOwnSignal(),
      ...(requestInit && { requestInit }),
    }),
  );
  return wrap(client, () => client.close());
}

/** Spawns `command args` and speaks 2026-07-28 to it over its real stdin and stdout. */
export async function spawnModernStdioClient(
  command: string,
  args: string[],
  options: { env?: Record<string, string>; cwd?: string; client?: ModernClientOptions } = {},
): Promise<ModernClient & { stderr(): string; pid: number | undefined }> {
  const transport = new ModernStdioClientTransport({
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
  const client = new ModernCapableClient(CLIENT_INFO, modernOptions(options.client));
  try {
    await client.connect(transport);
  } catch (error) {
    throw new Error(
      `could not reach ${command} ${args.join(' ')} in ${MODERN_REVISION}: ${(error as Error).message}\nstderr:\n${stderr}`,
    );
  }
  return Object.assign(
    wrap(client, () => client.close()),
    { stderr: () => stderr, pid: transport.pid ?? undefined },
  );
}

export interface SpawnedHttpServer {
  /** The Streamable HTTP endpoint it printed (`listening on <url>`). */
  url: string;
  pid: number | undefined;
  stderr(): string;
  /** SIGTERM, and waits for the exit; SIGKILL after `ms`. */
  close(ms?: number): Promise<void>;
}

/** Spawns a server bin with `--transport http --port 0` and resolves once it says where it listens. */
export async function spawnHttpServer(
  command: string,
  args: string[],
  options: { env?: Record<string, string>; cwd?: string; ms?: number } = {},
): Promise<SpawnedHttpServer> {
  const child = spawn(command, [...args, '--transport', 'http', '--port', '0'], {
    ...(options.cwd && { cwd: options.cwd }),
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const close = async (ms = 5000) => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), ms);
    await exited;
    clearTimeout(timer);
  };
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      void close();
      reject(
        new Error(
          `${command} ${args.join(' ')} did not listen within ${options.ms ?? 20_000} ms:\n${stderr}`,
        ),
      );
    }, options.ms ?? 20_000);
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-100_000);
      const listening = /listening on (http:\/\/\S+\/mcp)\b/.exec(stderr);
      if (listening?.[1]) {
        clearTimeout(timer);
        resolve(listening[1]);
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${command} exited (${signal ?? code}) before listening:\n${stderr}`));
    });
  });
  return { url, pid: child.pid, stderr: () => stderr, close };
}

/** A 2026-07-28 client over Streamable HTTP; `token` is sent as a bearer token on every request. */
export async function connectModernHttpClient(
  url: string,
  options?: ModernClientOptions & { token?: string },
): Promise<ModernClient> {
  const { token, ...clientOptions } = options ?? {};
  const client = new ModernCapableClient(CLIENT_INFO, modernOptions(clientOptions));
  const requestInit = token ? { headers: { authorization: `Bearer ${token}` } } : undefined;
  await client.connect(new ModernHttpClientTransport(new URL(url), { ...(requestInit && { requestInit }) }));
  return wrap(client, () => client.close());
}

/** How a test reaches a server in one protocol era: over stdio, and over HTTP. */
export interface EraConnectors {
  stdio(
    command: string,
    args: string[],
    options: { env?: Record<string, string>; cwd?: string },
  ): Promise<ToolClient & { stderr(): string }>;
  http(url: string, options: { token?: string }): Promise<ToolClient>;
}

const ERAS: [string, EraConnectors][] = [
  [MODERN_REVISION, { stdio: spawnModernStdioClient, http: connectModernHttpClient }],
  ['2025', { stdio: spawnStdioClient, http: connectHttpClient }],
];

/**
 * For tests run once by every kind of client: `<era> over stdio`, then `<era> over HTTP`, for the
 * 2026-07-28 era and the 2025 one (a name starts with MODERN_REVISION when its client is modern),
 * each made by `over` from its era's connectors.
 */
export function dualEraClients<C>(over: {
  stdio(era: EraConnectors): C;
  http(era: EraConnectors): C;
}): Record<string, C> {
  return Object.fromEntries([
    ...ERAS.map(([era, connectors]) => [`${era} over stdio`, over.stdio(connectors)]),
    ...ERAS.map(([era, connectors]) => [`${era} over HTTP`, over.http(connectors)]),
  ]);
}

/** A hand-made 2026-07-28 request's answer: the HTTP status, the session header (there should be none) and the JSON-RPC message answering it. */
export interface ModernAnswer<Message> {
  status: number;
  session: string | null;
  body: Message;
}

/**
 * One 2026-07-28 request by hand over HTTP, as any client sends it: the envelope in `_meta`, the
 * routing headers, no session; `capabilities` are the client's (none unless given).
 */
export async function modernRequest<Message = Record<string, unknown>>(
  url: string,
  request: {
    id: number;
    method: string;
    params: Record<string, unknown>;
    token?: string;
    capabilities?: Record<string, unknown>;
  },
): Promise<ModernAnswer<Message>> {
  const { id, method, params, token, capabilities = {} } = request;
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': MODERN_REVISION,
      'mcp-method': method,
      ...(typeof params.name === 'string' && { 'mcp-name': params.name }),
      ...(token && { authorization: `Bearer ${token}` }),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': MODERN_REVISION,
          'io.modelcontextprotocol/clientInfo': CLIENT_INFO,
          'io.modelcontextprotocol/clientCapabilities': capabilities,
        },
      },
    }),
  });
  const answer = { status: response.status, session: response.headers.get('mcp-session-id') };
  if (!(response.headers.get('content-type') ?? '').startsWith('text/event-stream'))
    return { ...answer, body: (await response.json()) as Message };
  return { ...answer, body: eventStreamAnswer(await response.text()) as Message };
}

/** In an answer sent as an event stream, the last message that answers a request (has an id). */
export function eventStreamAnswer(text: string): Record<string, unknown> | undefined {
  return text
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice('data: '.length)) as Record<string, unknown>)
    .filter((message) => message.id !== undefined)
    .at(-1);
}

/**
 * For tests: `ok` calls a tool that must succeed and returns its structured content, `fails` one
 * that must fail and returns its message; `as` calls as an identity the way the aggregator names
 * its caller (`toolmesh/agent` in the request `_meta`), and `asOk` does so for a call that must succeed.
 */
export function toolExpectations(client: ToolClient) {
  const succeeded = <T>(name: string, result: CallToolResult): T => {
    if (result.isError) throw new Error(`${name} failed: ${resultText(result)}`);
    return result.structuredContent as T;
  };
  const as = (agent: string, name: string, args: Record<string, unknown> = {}) =>
    client.call(name, args, { [META_KEYS.agent]: agent });
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
