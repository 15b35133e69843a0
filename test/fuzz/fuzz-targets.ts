import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FuzzFixture, FuzzTree } from './fuzz-fixture.js';

const PACKAGES = fileURLToPath(new URL('../node_modules/', import.meta.url));

/** The built bin of one of this package's workspace dependencies. */
function bin(packageName: string): string {
  return path.join(PACKAGES, packageName, 'dist', 'index.js');
}

/** One server as the fuzz test starts it: `node <args>` in `cwd` with `env`. */
export interface FuzzTarget {
  name: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
}

/**
 * The first-party servers with the flags that give them real work under the fixture's root;
 * each state file is named (`--db`) so every server's command line names the root.
 */
function serverArgs(fixture: FuzzFixture, tree: FuzzTree, owner: string): Record<string, string[]> {
  const db = (name: string) => ['--db', path.join(fixture.dataDir(`${owner}${name}`), `${name}.db`)];
  return {
    fs: [bin('@toolmesh/server-fs'), '--root', tree.work],
    git: [bin('@toolmesh/server-git'), '--root', tree.repo],
    'git-write': [bin('@toolmesh/server-git'), '--root', tree.writableRepo, '--allow-write'],
    'code-graph': [bin('@toolmesh/server-code-graph'), '--root', tree.work, '--watch', 'off'],
    tickets: [bin('@toolmesh/server-tickets'), ...db('tickets')],
    memory: [bin('@toolmesh/server-memory'), ...db('memory')],
    // Feeds may reach loopback, so fetches really run and meet the closed port.
    feeds: [bin('@toolmesh/server-feeds'), '--no-schedule', '--allow-private-network', ...db('feeds')],
  };
}

/**
 * Each server's own data directory (and toolmesh's code cache in it, which would otherwise be
 * written under HOME, as for a user) and a HOME outside the root; no Redis or embeddings
 * endpoint from the test machine's environment.
 */
function environment(fixture: FuzzFixture, name: string): Record<string, string> {
  mkdirSync(fixture.dataDir(name), { recursive: true });
  return {
    TOOLMESH_DATA_DIR: fixture.dataDir(name),
    TOOLMESH_CACHE_DIR: path.join(fixture.dataDir(name), 'cache'),
    HOME: fixture.home,
    REDIS_URL: '',
    TOOLMESH_EMBEDDINGS_API_KEY: '',
  };
}

export function serverTargets(fixture: FuzzFixture): FuzzTarget[] {
  return Object.entries(serverArgs(fixture, fixture, '')).map(([name, args]) => ({
    name,
    args,
    env: environment(fixture, name),
    cwd: fixture.root,
  }));
}

/** `toolmesh serve` with a config that names every first-party server, as a client spawns it. */
export function configuredAggregator(fixture: FuzzFixture): FuzzTarget {
  const env = environment(fixture, 'aggregator');
  const mcpServers = Object.fromEntries(
    Object.entries(serverArgs(fixture, fixture.tree('aggregator'), 'aggregator-'))
      .filter(([name]) => name !== 'git')
      .map(([name, args]) => [
        name,
        { command: process.execPath, args, env: environment(fixture, `aggregator-${name}`) },
      ]),
  );
  const config = path.join(fixture.root, 'toolmesh.json');
  writeFileSync(config, JSON.stringify({ mcpServers }, null, 2));
  return {
    name: 'aggregator',
    args: [bin('@toolmesh/aggregator'), 'serve', '--config', config],
    env,
    cwd: fixture.root,
  };
}

/** `toolmesh serve` with no config in an empty folder: every installed first-party server, rooted there. */
export function defaultAggregator(fixture: FuzzFixture): FuzzTarget {
  const cwd = path.join(fixture.root, 'plain');
  mkdirSync(cwd, { recursive: true });
  return {
    name: 'aggregator-default',
    args: [bin('@toolmesh/aggregator'), 'serve', '--root', cwd],
    env: environment(fixture, 'aggregator-default'),
    cwd,
  };
}

/** A target by name: a server of serverTargets, `aggregator` (configured) or `aggregator-default`. */
export function targetNamed(fixture: FuzzFixture, name: string): FuzzTarget {
  if (name === 'aggregator') return configuredAggregator(fixture);
  if (name === 'aggregator-default') return defaultAggregator(fixture);
  const target = serverTargets(fixture).find((candidate) => candidate.name === name);
  if (!target) throw new Error(`no fuzz target named ${name}`);
  return target;
}
