// Install sizes (issue 26): every package packed with `pnpm pack` and installed from the tarballs
// with plain npm into empty folders, as a user installs a release, and measured on disk.
// `node test/bench/run.mjs --only install` rewrites this section alone.
import { execFile } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import {
  closureBytes,
  diskUsage,
  INSTALLS,
  installInto,
  localPrebuilds,
  mib,
  packAll,
  packageBytes,
  SERVERS,
  serverTarget,
  TARGETS_MIB,
} from './install-sizes.mjs';
import { table } from './markdown.mjs';
import { runAloneWhenMain } from './run-alone.mjs';
import { ms } from './stats.mjs';

export async function benchmarkInstall({ base, log }) {
  const folder = path.join(base, 'install');
  log('bench: packing every package and installing the tarballs with npm');
  const tarballs = await packAll(path.join(folder, 'tarballs'));
  const prebuilds = await localPrebuilds(path.join(folder, 'prebuilds'));
  const installs = Object.keys(INSTALLS);
  const elapsed = await Promise.all(
    installs.map((install) =>
      installInto(path.join(folder, install), tarballs, INSTALLS[install], prebuilds),
    ),
  );
  const installed = installs.map((install, i) => {
    const root = path.join(folder, install);
    return {
      install,
      bytes: diskUsage(path.join(root, 'node_modules')),
      sqliteBytes: packageBytes(root, 'better-sqlite3'),
      elapsedMs: elapsed[i],
    };
  });
  const everything = path.join(folder, 'everything');
  const servers = SERVERS.map((server) => ({
    server,
    bytes: closureBytes(everything, `@toolmesh/server-${server}`),
    target: serverTarget(`server-${server}`),
  }));
  const npm = (await promisify(execFile)('npm', ['--version'])).stdout.trim();
  return { installed, servers, load: os.loadavg()[0].toFixed(1), npm };
}

const LABELS = {
  'server-fs': '`@toolmesh/server-fs` alone',
  'server-git': '`@toolmesh/server-git` alone',
  everything: '`@toolmesh/aggregator` with every server',
};

const within = (bytes, target) => `${bytes / 2 ** 20 <= target ? '' : '**over** '}${target}`;

export function renderInstallSection(run) {
  return `## Install sizes

Every package is packed with \`pnpm pack\` (which turns \`workspace:*\` into versions) and its tarballs
installed with plain npm ${run.npm} (\`npm install --prefer-offline <tarballs>\`) into empty folders, the
three installs at once; sizes are what \`du\` counts under \`node_modules\`, in MiB. better-sqlite3's
prebuilt binary, which its install script downloads from GitHub (out of reach here; without it npm compiles
it from source, which leaves 28 MiB of build products where the binary takes about 12, and took about two
minutes), is made from the workspace's own build of the same version and handed to that script as a local
prebuild (\`localPrebuilds\` in test/bench/install-sizes.mjs), so each install gets what a user's download
gets. A server's own size is read off
the install of everything: its package and every package it depends on, each counted once. Load average
when the section ran: ${run.load} on ${os.cpus().length} cores shared with other work.
\`node test/bench/run.mjs --only install\` (after \`pnpm build\`) runs this section alone and rewrites it;
\`test/e2e/pack-install.test.ts\` installs the same way in \`pnpm test\` and asserts the targets.

${table(
  ['Install', 'Installed (MiB)', 'Target (MiB)', 'of which better-sqlite3', 'npm install took'],
  run.installed.map((entry) => [
    LABELS[entry.install],
    `**${mib(entry.bytes)}**`,
    within(
      entry.bytes,
      entry.install === 'everything' ? TARGETS_MIB.everything : serverTarget(entry.install),
    ),
    entry.sqliteBytes > 0 ? mib(entry.sqliteBytes) : 'not installed',
    ms(entry.elapsedMs),
  ]),
)}

${table(
  ['Server with its dependencies', 'MiB', 'Target (MiB)'],
  run.servers.map((entry) => [
    `\`@toolmesh/server-${entry.server}\``,
    `**${mib(entry.bytes)}**`,
    within(entry.bytes, entry.target),
  ]),
)}
`;
}

runAloneWhenMain(import.meta.url, 'install', benchmarkInstall, renderInstallSection);
