import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { type RawMessage, type RawStdioPeer, spawnRawStdio } from '@toolmesh/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveConfig } from '../src/cli/resolve-config.js';
import { installedFirstPartyServers } from '../src/config/first-party.js';
import { parseConfig } from '../src/config/load.js';
import { isHosted } from '../src/config/shared-processes.js';
import { FIXTURE_SERVER, type Harness, startHarness, TOOLMESH_BIN, until } from './harness.js';

const HOST_PROGRAM = createRequire(import.meta.url).resolve('@toolmesh/core/host');
/** Eight servers start, restart and end under whatever else the machine runs. */
const PATIENCE_MS = 100_000;
const WORKSPACES = ['alpha', 'beta'];
/** Per workspace: fs, git and code-graph; for both: tickets and memory. */
const SERVERS = ['fs', 'git', 'code-graph', 'tickets', 'memory'];

let scratch: Harness;
let folder: string;
let dataDir: string;

/** The first-party servers as `toolmesh serve` runs them, in two workspaces, with our data folder. */
function firstPartyConfig(extra: Record<string, unknown> = {}) {
  const servers = Object.fromEntries(
    [...installedFirstPartyServers()]
      .filter(([name]) => SERVERS.includes(name))
      // tickets is spoken to in 2025, so that a hosted server of either era is called and compared.
      .map(([name, config]) => [
        name,
        { ...config, env: { TOOLMESH_DATA_DIR: dataDir }, ...(name === 'tickets' && { protocol: '2025' }) },
      ]),
  );
  return {
    mcpServers: servers,
    workspaces: Object.fromEntries(WORKSPACES.map((id) => [id, { roots: [path.join(folder, id)] }])),
    // `serve` answers once every server is ready, so the first tools/list has them all.
    startupWaitMs: PATIENCE_MS,
    ...extra,
  };
}

beforeAll(async () => {
  scratch = await startHarness({});
  folder = scratch.folder;
  dataDir = path.join(folder, 'data');
  for (const id of WORKSPACES) {
    const root = path.join(folder, id);
    mkdirSync(root);
    writeFileSync(path.join(root, 'where.ts'), `export function in_${id}() { return '${id}'; }\n`);
    execFileSync('git', ['init', '-q', root]);
  }
  writeFileSync(path.join(folder, 'toolmesh.json'), JSON.stringify(firstPartyConfig()));
});
afterAll(() => scratch.close());

describe('which servers share a process', () => {
  it('groups first-party servers by sandbox settings: per workspace fs, git and code-graph; tickets and memory', () => {
    const { servers } = parseConfig(firstPartyConfig({ shareProcesses: true }), { baseDir: folder });
    const groups = new Map<string, string[]>();
    for (const [name, config] of servers) {
      if (!isHosted(config)) continue;
      const { group } = config.sharedProcess;
      groups.set(group, [...(groups.get(group) ?? []), name]);
    }
    expect([...groups.values()].map((names) => names.sort())).toEqual([
      ['code-graph@alpha', 'fs@alpha', 'git@alpha'],
      ['code-graph@beta', 'fs@beta', 'git@beta'],
      ['memory', 'tickets'],
    ]);
    // A shared sandbox is the union of its servers': code-graph's roots are writable with fs's.
    const codeGraph = servers.get('code-graph@alpha');
    expect(codeGraph && isHosted(codeGraph) && codeGraph.sharedProcess.writableRoots).toBe(true);
  });

  it('shares with no config file, the README start, unless `serve --processes separate` says otherwise', () => {
    const hosted = (servers: Map<string, unknown>) =>
      [...servers].filter(([, server]) => isHosted(server as never)).map(([name]) => name);
    expect(hosted(resolveConfig({ root: folder }).servers)).toEqual([
      'fs@default',
      'git@default',
      'code-graph@default',
      'tickets',
      'memory',
      'feeds',
      'rigs',
    ]);
    expect(hosted(resolveConfig({ root: folder, shareProcesses: false }).servers)).toEqual([]);
  });

  it('follows a server its own shareProcess, and `serve --processes` over both', () => {
    const config = firstPartyConfig({ shareProcesses: true });
    config.mcpServers.tickets = { ...config.mcpServers.tickets, shareProcess: false } as never;
    const own = parseConfig(config, { baseDir: folder }).servers;
    expect(isHosted(own.get('tickets') as never)).toBe(false);
    // memory is left alone with its settings: alone, it runs as before.
    expect(isHosted(own.get('memory') as never)).toBe(false);
    const forced = parseConfig(config, { baseDir: folder, shareProcesses: true }).servers;
    expect(isHosted(forced.get('tickets') as never)).toBe(true);
    const separate = parseConfig(config, { baseDir: folder, shareProcesses: false }).servers;
    expect([...separate.values()].some((server) => isHosted(server))).toBe(false);
  });

  it('refuses shareProcess on a server it cannot host, naming the key, and ignores one set in a file', () => {
    expect(() =>
      parseConfig({
        mcpServers: { other: { command: process.execPath, args: [FIXTURE_SERVER], shareProcess: true } },
      }),
    ).toThrow(
      /mcpServers\.other\.shareProcess: only first-party servers run as `node <their bin>` can share a process/,
    );
    const smuggled = parseConfig({
      mcpServers: {
        other: {
          command: process.execPath,
          args: [FIXTURE_SERVER],
          sharedProcess: { group: 'x', program: FIXTURE_SERVER, args: [], programs: [], writableRoots: true },
        },
      },
    });
    expect(isHosted(smuggled.servers.get('other') as never)).toBe(false);
  });
});

/** Every process below `pid`, with its command line, from /proc. */
function descendantsOf(pid: number): { pid: number; argv: string[] }[] {
  const found: { pid: number; argv: string[] }[] = [];
  const walk = (parent: number) => {
    let children: number[] = [];
    try {
      children = readFileSync(`/proc/${parent}/task/${parent}/children`, 'utf8')
        .trim()
        .split(/\s+/)
        .filter(Boolean)
        .map(Number);
    } catch {
      return;
    }
    for (const child of children) {
      try {
        found.push({ pid: child, argv: readFileSync(`/proc/${child}/cmdline`, 'utf8').split('\0') });
      } catch {
        continue;
      }
      walk(child);
    }
  };
  walk(pid);
  return found;
}

/** The server host processes themselves (not the bwrap around them). */
function hostsBelow(pid: number): number[] {
  return descendantsOf(pid)
    .filter(({ argv }) => argv[0] === process.execPath || path.basename(argv[0] ?? '') === 'node')
    .filter(({ argv }) => argv[1] === HOST_PROGRAM)
    .map((entry) => entry.pid);
}

/** Server processes of their own: Node running a first-party bin. */
function serversBelow(pid: number): number[] {
  return descendantsOf(pid)
    .filter(({ argv }) => argv[0] === process.execPath || path.basename(argv[0] ?? '') === 'node')
    .filter(({ argv }) => /\/servers\/[^/]+\/dist\/index\.js$/.test(argv[1] ?? ''))
    .map((entry) => entry.pid);
}

/** Gone, or a zombie that init is about to reap. */
function isGone(pid: number): boolean {
  try {
    return /^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true;
  }
}

async function serve(processes: 'shared' | 'separate'): Promise<RawStdioPeer> {
  const peer = spawnRawStdio(process.execPath, [TOOLMESH_BIN, 'serve', '--processes', processes], {
    cwd: folder,
    env: { TOOLMESH_DATA_DIR: dataDir },
  });
  const initialized = await peer.request(
    'initialize',
    { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test', version: '1' } },
    PATIENCE_MS,
  );
  expect(initialized.error, peer.stderr()).toBeUndefined();
  await peer.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
  return peer;
}

type Tool = { name: string; inputSchema: unknown; _meta?: unknown };

async function toolsOf(peer: RawStdioPeer): Promise<Tool[]> {
  const answer = await peer.request('tools/list', {}, PATIENCE_MS);
  return ((answer.result as { tools: Tool[] }).tools ?? []).sort((a, b) => a.name.localeCompare(b.name));
}

function call(peer: RawStdioPeer, name: string, args: Record<string, unknown>): Promise<RawMessage> {
  return peer.request('tools/call', { name, arguments: args }, PATIENCE_MS);
}

type CallResult = { isError?: boolean; structuredContent?: Record<string, unknown> };

/** Calls whose answers do not depend on timing, in each workspace. */
async function answers(peer: RawStdioPeer): Promise<CallResult[]> {
  const results: CallResult[] = [];
  for (const workspace_id of WORKSPACES) {
    for (const [name, args] of [
      ['fs__read_file', { path: 'where.ts' }],
      ['git__git_status', {}],
      ['code-graph__search_code', { query: `in_${workspace_id}` }],
      ['tickets__list_tickets', {}],
    ] as const) {
      const answer = await call(peer, name, { ...args, workspace_id });
      const result = answer.result as CallResult;
      expect(result?.isError, `${name}: ${JSON.stringify(answer)}`).toBeFalsy();
      results.push({ structuredContent: result.structuredContent });
    }
  }
  return results;
}

/** code-graph answers from what it indexed so far: wait for both roots. */
async function indexed(peer: RawStdioPeer): Promise<void> {
  for (const workspace_id of WORKSPACES) {
    await until(async () => {
      const result = (
        await call(peer, 'code-graph__search_code', { query: `in_${workspace_id}`, workspace_id })
      ).result as CallResult;
      return JSON.stringify(result?.structuredContent ?? {}).includes(`in_${workspace_id}`);
    }, PATIENCE_MS);
  }
}

describe('servers in shared processes through `toolmesh serve`', () => {
  it(
    'list and answer exactly as servers in processes of their own, per workspace too, in three processes instead of eight',
    async () => {
      const separate = await serve('separate');
      let expected: { tools: Tool[]; answers: CallResult[] };
      try {
        // Servers start after initialize is answered (or after the first list, from the cache).
        await until(() => serversBelow(separate.pid as number).length === 8, PATIENCE_MS);
        expect(hostsBelow(separate.pid as number)).toEqual([]);
        await indexed(separate);
        expected = { tools: await toolsOf(separate), answers: await answers(separate) };
        expect(separate.strayLines()).toEqual([]);
      } finally {
        await separate.close();
      }
      expect(expected.tools.map((tool) => tool.name)).toEqual(
        expect.arrayContaining([
          'fs__read_file',
          'git__git_status',
          'code-graph__search_code',
          'memory__remember',
        ]),
      );

      const shared = await serve('shared');
      try {
        await until(() => hostsBelow(shared.pid as number).length === 3, PATIENCE_MS);
        expect(serversBelow(shared.pid as number)).toEqual([]);
        await indexed(shared);
        expect(await toolsOf(shared)).toEqual(expected.tools);
        expect(await answers(shared)).toEqual(expected.answers);
        expect(shared.strayLines()).toEqual([]);
      } finally {
        await shared.close();
      }
    },
    4 * PATIENCE_MS,
  );

  it(
    'restarts the servers of a host killed with SIGKILL, and leaves no process once toolmesh is killed',
    async () => {
      const shared = await serve('shared');
      const toolmesh = shared.pid as number;
      try {
        await until(() => hostsBelow(toolmesh).length === 3, PATIENCE_MS);
        const [victim] = hostsBelow(toolmesh);
        process.kill(victim as number, 'SIGKILL');
        await until(() => isGone(victim as number), PATIENCE_MS);
        // Its servers come back in a new host, beside the two that never stopped.
        await until(() => {
          const hosts = hostsBelow(toolmesh);
          return hosts.length === 3 && !hosts.includes(victim as number);
        }, PATIENCE_MS);
        await until(async () => {
          for (const workspace_id of WORKSPACES) {
            for (const [name, args] of [
              ['fs__read_file', { path: 'where.ts' }],
              ['git__git_status', {}],
              ['tickets__list_tickets', {}],
            ] as const) {
              const result = (await call(shared, name, { ...args, workspace_id })).result as CallResult;
              if (!result || result.isError) return false;
            }
          }
          return true;
        }, PATIENCE_MS);
        expect(shared.stderr()).toMatch(/the shared process it ran in \(pid \d+\) ended/);

        const everything = descendantsOf(toolmesh).map((entry) => entry.pid);
        expect(everything.length).toBeGreaterThan(3);
        process.kill(toolmesh, 'SIGKILL');
        await until(() => everything.every(isGone), PATIENCE_MS);
        expect(shared.strayLines()).toEqual([]);
      } finally {
        await shared.close();
      }
    },
    4 * PATIENCE_MS,
  );
});
