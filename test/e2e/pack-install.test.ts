// Use one server, proven (issue 26): every package packed with `pnpm pack` and installed from the
// tarballs into empty folders with plain npm, as a user installs a release; each bin answers
// --help and a real SDK client over stdio; the installed sizes are held to the targets.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { resultText, type SpawnedClient, spawnStdioClient } from '@toolmesh/core/testing';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  closureBytes,
  diskUsage,
  INSTALLS,
  installInto,
  localPrebuilds,
  MIB,
  mib,
  packAll,
  packageBytes,
  SERVERS,
  serverTarget,
  TARGETS_MIB,
} from '../bench/install-sizes.mjs';

const run = promisify(execFile);

// pnpm's bin shims (vitest's among them) set NODE_PATH to the workspace's own packages, where an
// installed package would find what its manifest forgot, or what a user never installs.
delete process.env.NODE_PATH;

const base = mkdtempSync(path.join(os.tmpdir(), 'toolmesh-pack-install-'));
const folderOf = (install: string) => path.join(base, install);
const dataDir = path.join(base, 'data');

/** A folder for the servers to work on: one source file, in a git repository with one commit. */
const project = path.join(base, 'project');
const clients: SpawnedClient[] = [];

beforeAll(async () => {
  mkdirSync(project, { recursive: true });
  writeFileSync(
    path.join(project, 'greet.ts'),
    'export function greet(name: string) {\n  return "hi " + name;\n}\n',
  );
  const git = (...args: string[]) => run('git', args, { cwd: project });
  await git('init', '--quiet', '--initial-branch=main');
  await git('add', '.');
  await git('-c', 'user.name=Test', '-c', 'user.email=test@example.com', 'commit', '--quiet', '-m', 'first');
  const tarballs = await packAll(path.join(base, 'tarballs'));
  const prebuilds = await localPrebuilds(path.join(base, 'prebuilds'));
  // Three installs at once: npm's cache is shared.
  await Promise.all(
    Object.entries(INSTALLS).map(([install, packages]) =>
      installInto(folderOf(install), tarballs, packages, prebuilds),
    ),
  );
}, 20 * 60_000);

afterAll(async () => {
  for (const client of clients) await client.close().catch(() => {});
  rmSync(base, { recursive: true, force: true });
}, 120_000);

/** The installed bin `name` of `install`, the path npm linked it to. */
const bin = (install: string, name: string) => path.join(folderOf(install), 'node_modules', '.bin', name);

async function connect(command: string, args: string[]): Promise<SpawnedClient> {
  const client = await spawnStdioClient(command, args, { cwd: project, env: { TOOLMESH_DATA_DIR: dataDir } });
  clients.push(client);
  return client;
}

/** Exits 0 with its usage (on stderr: a stdio server's stdout is for protocol messages only). */
async function answersHelp(command: string) {
  const { stdout, stderr } = await run(command, ['--help']);
  expect(stdout + stderr).toContain('Usage:');
}

describe('@toolmesh/server-fs installed alone from its tarball', () => {
  it('answers --help, lists its tools and lists a folder for a real client', async () => {
    await answersHelp(bin('server-fs', 'toolmesh-fs'));
    const client = await connect(bin('server-fs', 'toolmesh-fs'), ['--root', project]);
    const { tools } = await client.client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['read_file', 'list_dir']));
    const listing = await client.call('list_dir', {});
    expect(listing.isError).toBeFalsy();
    expect(resultText(listing)).toContain('greet.ts');
  });

  it('installs none of what only HTTP serving and the test helpers load, and says what to add for HTTP', async () => {
    for (const name of ['@modelcontextprotocol/sdk', 'express', '@modelcontextprotocol/client'])
      expect(existsSync(path.join(folderOf('server-fs'), 'node_modules', name)), name).toBe(false);
    const failure = await run(
      bin('server-fs', 'toolmesh-fs'),
      ['--root', project, '--transport', 'http', '--port', '0'],
      {
        cwd: project,
        env: { ...process.env, TOOLMESH_DATA_DIR: dataDir },
      },
    ).then(
      () => ({ code: 0, stderr: 'served HTTP without the v1 SDK and express' }),
      (error: { code: number; stderr: string }) => error,
    );
    expect(failure.stderr).toContain(
      'serving over HTTP needs the v1 MCP SDK and express, but the packages @modelcontextprotocol/sdk, express are not installed beside @toolmesh/server-fs: run `npm install @modelcontextprotocol/sdk@^1.32.2 express@^5',
    );
    expect(failure.code).not.toBe(0);
  });
});

it("installs better-sqlite3's prebuilt binary, as a user's download does, not a build from source", () => {
  const built = path.join(folderOf('everything'), 'node_modules', 'better-sqlite3', 'build', 'Release');
  expect(existsSync(path.join(built, 'better_sqlite3.node'))).toBe(true);
  expect(existsSync(path.join(built, 'obj.target'))).toBe(false);
});

describe('@toolmesh/server-git installed alone from its tarball', () => {
  it('does not install better-sqlite3, which it does not use', () => {
    expect(existsSync(path.join(folderOf('server-git'), 'node_modules', 'better-sqlite3'))).toBe(false);
  });

  it('answers --help and a real client: its tools, and the status of a repository', async () => {
    await answersHelp(bin('server-git', 'toolmesh-git'));
    const client = await connect(bin('server-git', 'toolmesh-git'), ['--root', project]);
    const { tools } = await client.client.listTools();
    expect(tools.map((tool) => tool.name)).toContain('git_status');
    const status = await client.call('git_status', {});
    expect(status.isError).toBeFalsy();
    expect(resultText(status)).toContain('main');
  });

  it("core's SQLite storage says what to install when better-sqlite3 is missing", async () => {
    const script = `import('@toolmesh/core')
      .then((core) => core.openDatabase('kept.sqlite', []))
      .then(() => process.exit(0), (error) => { process.stderr.write(error.message); process.exit(3); })`;
    const failure = await run(process.execPath, ['--input-type=module', '-e', script], {
      cwd: folderOf('server-git'),
    }).then(
      () => ({ code: 0, stderr: 'opened a SQLite file without better-sqlite3' }),
      (error: { code: number; stderr: string }) => error,
    );
    expect(failure.stderr).toMatch(
      /keeps its data in SQLite, but the better-sqlite3 package is not installed beside @toolmesh\/core: run `npm install better-sqlite3@\^12/,
    );
    expect(failure.code).toBe(3);
    expect(existsSync(path.join(folderOf('server-git'), 'kept.sqlite'))).toBe(false);
  });
});

describe('@toolmesh/aggregator installed with every server from the tarballs', () => {
  it('has every bin answer --help', async () => {
    const bins = readdirSync(path.join(folderOf('everything'), 'node_modules', '.bin')).filter((name) =>
      name.startsWith('toolmesh'),
    );
    expect(bins.sort()).toEqual(
      ['toolmesh', ...SERVERS.map((server: string) => `toolmesh-${server}`)].sort(),
    );
    for (const name of bins) await answersHelp(bin('everything', name));
  });

  it('serves every installed server to a real client: list, search, call', async () => {
    const client = await connect(bin('everything', 'toolmesh'), [
      'serve',
      '--transport',
      'stdio',
      '--root',
      project,
    ]);
    // Servers still starting join later with list_changed: wait until each has listed its tools.
    await vi.waitFor(
      async () => {
        const names = (await client.client.listTools()).tools.map((tool) => tool.name);
        for (const server of SERVERS as string[])
          expect(names.some((name) => name.startsWith(`${server}__`))).toBe(true);
      },
      { timeout: 120_000, interval: 500 },
    );
    const found = await client.call('search_tool_bm25', { query: 'list folder files' });
    expect(resultText(found)).toContain('fs__list_dir');
    const listing = await client.call('fs__list_dir', {});
    expect(listing.isError).toBeFalsy();
    expect(resultText(listing)).toContain('greet.ts');
  }, 180_000);
});

describe('installed sizes (issue 26 targets, MiB as du counts them)', () => {
  const report = (line: string) => process.stderr.write(`install size: ${line}\n`);

  it(`the aggregator with every server: at most ${TARGETS_MIB.everything} MiB`, () => {
    const bytes = diskUsage(path.join(folderOf('everything'), 'node_modules'));
    report(
      `everything ${mib(bytes)} MiB (better-sqlite3 ${mib(packageBytes(folderOf('everything'), 'better-sqlite3'))})`,
    );
    expect(bytes / MIB).toBeLessThanOrEqual(TARGETS_MIB.everything);
  });

  it.each(['server-fs', 'server-git'] as const)('%s installed alone is within its target', (install) => {
    const bytes = diskUsage(path.join(folderOf(install), 'node_modules'));
    report(`${install} alone ${mib(bytes)} MiB`);
    expect(bytes / MIB).toBeLessThanOrEqual(serverTarget(install));
  });

  it.each((SERVERS as string[]).map((server) => `server-${server}`))(
    '%s with its dependencies, within the install of everything, is within its target',
    (server: string) => {
      const bytes = closureBytes(folderOf('everything'), `@toolmesh/${server}`);
      report(`${server} with its dependencies ${mib(bytes)} MiB`);
      expect(bytes / MIB).toBeLessThanOrEqual(serverTarget(server));
    },
  );
});
