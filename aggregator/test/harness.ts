import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ClientOptions } from '@modelcontextprotocol/sdk/client/index.js';
import { createLogger } from '@toolmesh/core';
import {
  type ConnectedClient,
  connectHttpClient,
  connectInMemory,
  type SpawnedHttpServer,
  spawnHttpServer,
} from '@toolmesh/core/testing';
import { Aggregator } from '../src/aggregator.js';
import { parseConfig } from '../src/config/load.js';
import type { Exposure } from '../src/session-server/session.js';
import { SqliteState } from '../src/state/sqlite-state.js';
import type { AggregatorState } from '../src/state/state.js';
import type { UpstreamOptions } from '../src/upstream/upstream.js';

export const FIXTURE_SERVER = fileURLToPath(new URL('./fixtures/fixture-server.mjs', import.meta.url));
export const STUBBORN_SERVER = fileURLToPath(new URL('./fixtures/stubborn-server.mjs', import.meta.url));
export const FS_BIN = path.join(
  path.dirname(createRequire(import.meta.url).resolve('@toolmesh/server-fs/package.json')),
  'dist',
  'index.js',
);

export const TICKETS_BIN = path.join(
  path.dirname(createRequire(import.meta.url).resolve('@toolmesh/server-tickets/package.json')),
  'dist',
  'index.js',
);

/** The built `toolmesh` bin. */
export const TOOLMESH_BIN = fileURLToPath(new URL('../dist/index.js', import.meta.url));

export interface ServedToolmesh {
  child: ChildProcess;
  /** The /mcp URL, once it listens. */
  url: Promise<string>;
  /** The token printed in the client config snippet. */
  token: Promise<string>;
  stderr: () => string;
  /** A client of `url + suffix` (e.g. `/plan`), with the printed token. */
  connect: (suffix?: string, options?: ClientOptions) => Promise<ConnectedClient>;
}

/**
 * `toolmesh serve --config <config> --transport http` from the built bin in `folder`, its data in
 * `folder/data` and no Redis unless `env` says otherwise, and the token it printed for local clients.
 */
export async function serveToolmeshHttp(
  config: string,
  folder: string,
  env: NodeJS.ProcessEnv = {},
): Promise<{ server: SpawnedHttpServer; token: string }> {
  const server = await spawnHttpServer(process.execPath, [TOOLMESH_BIN, 'serve', '--config', config], {
    env: { TOOLMESH_DATA_DIR: path.join(folder, 'data'), HOME: folder, REDIS_URL: '', ...env },
    cwd: folder,
    ms: 60_000,
  });
  return { server, token: /Bearer (tm_[\w-]+)/.exec(server.stderr())?.[1] as string };
}

/** `toolmesh serve` from the built bin, as a user starts it. */
export function serveToolmesh(args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): ServedToolmesh {
  const child = spawn(process.execPath, [TOOLMESH_BIN, 'serve', ...args], {
    stdio: ['pipe', 'pipe', 'pipe'],
    cwd,
    env: { ...process.env, ...env },
  });
  let stderr = '';
  const printed = new Promise<{ url: string; token: string }>((resolve, reject) => {
    child.stderr?.on('data', (chunk) => {
      stderr += chunk;
      const url = /listening on (http:\/\/\S+\/mcp)/.exec(stderr)?.[1];
      if (url) resolve({ url, token: /Bearer (tm_[\w-]+)/.exec(stderr)?.[1] ?? '' });
    });
    child.once('exit', () => reject(new Error(`toolmesh exited early:\n${stderr}`)));
  });
  const url = printed.then((found) => found.url);
  const token = printed.then((found) => found.token);
  url.catch(() => undefined);
  return {
    child,
    url,
    token,
    stderr: () => stderr,
    connect: async (suffix = '', options = {}) =>
      connectHttpClient(`${await url}${suffix}`, { ...options, token: await token }),
  };
}

/** The fixture server as a remote one (`--http`: Streamable HTTP; `--sse`: legacy SSE only), once it listens. */
export async function serveFixtureOverHttp(
  name: string,
  transport: '--http' | '--sse',
): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [FIXTURE_SERVER, transport], {
    env: { ...process.env, FIXTURE_NAME: name },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const found = /listening on (\S+)/.exec(stderr);
      if (found) resolve(found[1] as string);
    });
    child.once('exit', () => reject(new Error(`the fixture server exited:\n${stderr}`)));
  });
  return { child, url };
}

export function fixture(name: string, extra: Record<string, unknown> = {}) {
  return { command: process.execPath, args: [FIXTURE_SERVER], env: { FIXTURE_NAME: name }, ...extra };
}

export interface Harness {
  aggregator: Aggregator;
  folder: string;
  logs: string[];
  connect(
    options?: ClientOptions & { exposure?: Exposure; mode?: string; workspace?: string },
  ): Promise<ConnectedClient>;
  /** Reloads, then waits for the first attempt of every server the reload started. */
  reload(next: Parameters<Aggregator['reload']>[0]): ReturnType<Aggregator['reload']>;
  close(): Promise<void>;
}

/**
 * A real aggregator over real child processes, with a temp folder and captured logs. Servers are
 * not pinged and restart after 100 ms doubling to 400 ms, unless `upstream` says otherwise. It
 * starts once every server's first attempt has ended, unless the config sets `startupWaitMs`.
 * Its state is a SQLite file in the folder, unless `state` is given (it is closed with the harness).
 */
export async function startHarness(
  raw: Record<string, unknown>,
  upstream: Omit<UpstreamOptions, 'log' | 'relay'> = {},
  given: { state?: AggregatorState } = {},
): Promise<Harness> {
  const folder = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolmesh-agg-')));
  const logs: string[] = [];
  const loaded = parseConfig(raw);
  const state = given.state ?? SqliteState.open(path.join(folder, 'state.sqlite'));
  const aggregator = await Aggregator.start({
    config: loaded.config,
    servers: loaded.servers,
    workspaces: loaded.workspaces,
    state,
    log: createLogger({ level: 'debug', sink: (line) => logs.push(line) }),
    upstream: { pingIntervalMs: 0, backoffBaseMs: 100, backoffMaxMs: 400, ...upstream },
    ...(!('startupWaitMs' in raw) && { startupWaitMs: Number.POSITIVE_INFINITY }),
  });
  const clients: ConnectedClient[] = [];
  return {
    aggregator,
    folder,
    logs,
    async connect(options = {}) {
      const { exposure, mode, workspace, ...clientOptions } = options;
      const server = aggregator.createSessionServer({
        ...(exposure && { exposure }),
        ...(mode && { mode }),
        ...(workspace && { workspace }),
      });
      const client = await connectInMemory(server, clientOptions);
      clients.push(client);
      return client;
    },
    async reload(next) {
      const outcome = await aggregator.reload(next);
      await aggregator.upstreams.settled();
      return outcome;
    },
    async close() {
      await Promise.allSettled(clients.map((client) => client.close()));
      await aggregator.stop();
      await state.close();
      rmSync(folder, { recursive: true, force: true });
    },
  };
}

export async function until(check: () => boolean | Promise<boolean>, ms = 8000): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error('condition not met in time');
}

/** The orphan watchdog toolmesh process `pid` started, while `pid` lives. */
export function watchdogOf(pid: number): number | undefined {
  return processesTagged('toolmesh-watchdog').find((candidate) => {
    try {
      return /^PPid:\s*(\d+)$/m.exec(readFileSync(`/proc/${candidate}/status`, 'utf8'))?.[1] === String(pid);
    } catch {
      return false;
    }
  });
}

/** Processes whose command line carries `tag`: the children a test started (tag them with an argument or variable no other process has). */
export function processesTagged(tag: string): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(tag);
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** Kills, by pid, whatever carries `tag`: what a failing test would otherwise leave behind. */
export function reapTagged(tag: string): void {
  for (const pid of processesTagged(tag)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {}
  }
}
