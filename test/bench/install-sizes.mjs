// Packs every workspace package with `pnpm pack` (which turns `workspace:*` into versions) and
// installs the tarballs with plain npm into empty folders, the way a user installs a release.
// Used by the pack-and-install test (test/e2e/pack-install.test.ts) and the install-size bench.
import { execFile } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

const PACKAGE_FOLDERS = ['shared/core', 'shared/bm25', 'aggregator'];
const SERVERS_FOLDER = 'servers';

export const MIB = 2 ** 20;

/**
 * The install-size targets of issue 26, in MiB as `du -m` counts them: the aggregator with every
 * first-party server, each server with its own dependencies, code-graph with its grammars.
 */
export const TARGETS_MIB = { everything: 250, server: 60, 'server-code-graph': 100 };

/** The target a server's own install is held to. */
export const serverTarget = (name) => TARGETS_MIB[name] ?? TARGETS_MIB.server;

/** The first-party servers, each `@toolmesh/server-<name>` with a bin `toolmesh-<name>`. */
export const SERVERS = ['fs', 'git', 'tickets', 'memory', 'feeds', 'code-graph', 'rigs'];

/** The three installs a release user makes: one server alone, another alone, everything. */
export const INSTALLS = {
  'server-fs': ['@toolmesh/core', '@toolmesh/server-fs'],
  'server-git': ['@toolmesh/core', '@toolmesh/server-git'],
  everything: 'all',
};

/** Every publishable package folder of the workspace. */
function packageFolders() {
  const servers = readdirSync(path.join(REPO, SERVERS_FOLDER))
    .map((name) => path.join(SERVERS_FOLDER, name))
    .filter((folder) => existsSync(path.join(REPO, folder, 'package.json')));
  return [...PACKAGE_FOLDERS, ...servers];
}

/** `pnpm pack`s every package into `destination`; resolves to a map from package name to tarball. */
export async function packAll(destination) {
  mkdirSync(destination, { recursive: true });
  const tarballs = new Map();
  for (const folder of packageFolders()) {
    const { stdout } = await run('pnpm', ['pack', '--json', '--pack-destination', destination], {
      cwd: path.join(REPO, folder),
      maxBuffer: 16 * MIB,
    });
    const { name, filename } = JSON.parse(stdout);
    tarballs.set(name, filename);
  }
  return tarballs;
}

/**
 * The environment npm gets: the caller's, without the `npm_*` settings pnpm hands its scripts and
 * the NODE_PATH its bin shims set (the workspace's packages, which a user's machine does not have).
 */
function plainNpmEnvironment() {
  return Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key) && key !== 'NODE_PATH'),
  );
}

/**
 * better-sqlite3's install script downloads its prebuilt binary from GitHub, which this machine
 * cannot reach, and otherwise compiles it from source (about two minutes for each folder here,
 * and 28 MiB of build products where the binary alone takes 12). The binary that download would
 * give is made from the workspace's own build of the same version, for this Node and platform,
 * into `destination`, where prebuild-install finds it as a local prebuild (installInto says so).
 */
export async function localPrebuilds(destination) {
  const require = createRequire(path.join(REPO, 'shared/core/package.json'));
  const manifest = require.resolve('better-sqlite3/package.json');
  const { version } = JSON.parse(readFileSync(manifest, 'utf8'));
  const binary = 'build/Release/better_sqlite3.node';
  const built = path.dirname(manifest);
  if (!existsSync(path.join(built, binary))) throw new Error(`no ${binary} in ${built}: run pnpm install`);
  mkdirSync(destination, { recursive: true });
  const { modules } = process.versions;
  const name = `better-sqlite3-v${version}-node-v${modules}-${process.platform}-${process.arch}.tar.gz`;
  await run('tar', ['-czf', path.join(destination, name), '-C', built, binary]);
  return destination;
}

/**
 * `npm install`s the tarballs of `names` (or every tarball, for `'all'`) into `folder`, an empty
 * folder with only a package.json, preferring npm's cache to the registry, and better-sqlite3's
 * binary from `prebuilds` (localPrebuilds). Resolves to the time it took; rejects with npm's
 * output when it fails.
 */
export async function installInto(folder, tarballs, names, prebuilds) {
  mkdirSync(folder, { recursive: true });
  writeFileSync(
    path.join(folder, 'package.json'),
    `${JSON.stringify({ name: 'install-check', private: true })}\n`,
  );
  const files = names === 'all' ? [...tarballs.values()] : names.map((name) => tarballs.get(name));
  const began = performance.now();
  try {
    await run(
      'npm',
      ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error', ...files],
      {
        cwd: folder,
        env: { ...plainNpmEnvironment(), npm_config_better_sqlite3_local_prebuilds: prebuilds },
        maxBuffer: 64 * MIB,
      },
    );
  } catch (error) {
    throw new Error(
      `npm install in ${folder} failed:\n${error.stdout ?? ''}${error.stderr ?? error.message}`,
    );
  }
  return performance.now() - began;
}

/**
 * Bytes on disk under `target`, as `du` counts them (allocated blocks, each inode once),
 * leaving out the folders `skip` names.
 */
export function diskUsage(target, { skip = () => false, seen = new Set() } = {}) {
  const stat = lstatSync(target);
  if (seen.has(stat.ino)) return 0;
  seen.add(stat.ino);
  let bytes = stat.blocks * 512;
  if (stat.isDirectory()) {
    for (const entry of readdirSync(target)) {
      const child = path.join(target, entry);
      if (!skip(child)) bytes += diskUsage(child, { skip, seen });
    }
  }
  return bytes;
}

/** The folder Node would load `name` from when required by the package in `from`, below `root`. */
function resolvePackage(from, name, root) {
  for (let folder = from; folder.startsWith(root); folder = path.dirname(folder)) {
    const candidate = path.join(folder, 'node_modules', name);
    if (existsSync(path.join(candidate, 'package.json'))) return candidate;
    if (folder === root) break;
  }
  return undefined;
}

/**
 * What installing `name` alone would weigh, read off an install that holds it among others: the
 * package and everything it depends on (optional dependencies and required peers too), each
 * package's folder counted once without the packages nested in it.
 */
export function closureBytes(root, name) {
  const seen = new Set();
  const pending = [resolvePackage(root, name, root)];
  let bytes = 0;
  const inodes = new Set();
  while (pending.length > 0) {
    const folder = pending.pop();
    if (!folder || seen.has(folder)) continue;
    seen.add(folder);
    const nested = path.join(folder, 'node_modules');
    bytes += diskUsage(folder, { skip: (child) => child === nested, seen: inodes });
    const manifest = JSON.parse(readFileSync(path.join(folder, 'package.json'), 'utf8'));
    // npm installs peers, except those marked optional (core's better-sqlite3): a server that
    // needs one depends on it itself.
    const peers = Object.keys(manifest.peerDependencies ?? {}).filter(
      (peer) => !manifest.peerDependenciesMeta?.[peer]?.optional,
    );
    const needs = [
      ...peers,
      ...Object.keys(manifest.optionalDependencies ?? {}),
      ...Object.keys(manifest.dependencies ?? {}),
    ];
    for (const dependency of needs) pending.push(resolvePackage(folder, dependency, root));
  }
  return bytes;
}

/** A package's size on disk in `root`'s node_modules, 0 when it is not there. */
export function packageBytes(root, name) {
  const folder = path.join(root, 'node_modules', name);
  return existsSync(folder) ? diskUsage(folder) : 0;
}

/** `bytes` in MiB with one decimal, as the sizes are reported. */
export const mib = (bytes) => (bytes / MIB).toFixed(1);
