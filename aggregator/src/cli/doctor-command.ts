import { existsSync } from 'node:fs';
import path from 'node:path';
import { dataDirectory } from '@toolmesh/core';
import { Aggregator } from '../aggregator.js';
import type { LoadedConfig } from '../config/load.js';
import { isStdioServer, type ServerConfig } from '../config/schema.js';
import { findOnPath } from '../sandbox/find-bwrap.js';
import { openState } from '../state/open-state.js';
import { CatalogueCache } from '../upstream/catalogue-cache.js';
import { startTimedOut } from '../upstream/upstream.js';
import { type Command, flagsOnly, parseFlags, print } from './command.js';
import { configOf, loggerFor, nothingServed, REGISTRY_FLAGS } from './registry-flags.js';
import { stopPromptly } from './stop-promptly.js';

export const doctorCommand: Command = {
  async run(args) {
    const { values, positionals } = parseFlags('doctor', args, REGISTRY_FLAGS);
    flagsOnly('doctor', positionals);
    const loaded = configOf(values);
    const aggregator = await Aggregator.start({
      config: loaded.config,
      servers: loaded.servers,
      workspaces: loaded.workspaces,
      state: openState({}),
      log: loggerFor(values, 'info'),
      upstream: { pingIntervalMs: 0 },
      // Every server's own answer: each start is bounded by its connect timeout.
      startupWaitMs: Number.POSITIVE_INFINITY,
      catalogueCache: CatalogueCache.inDataDirectory(dataDirectory()),
    });
    try {
      return report(aggregator, loaded);
    } finally {
      await stopPromptly(aggregator);
    }
  },
};

function report(aggregator: Aggregator, loaded: LoadedConfig): number {
  for (const warning of loaded.warnings) print(`warning ${warning}`);
  const empty = nothingServed(loaded);
  if (empty) {
    print(`FAILED  ${empty}`);
    return 1;
  }
  let failed = 0;
  for (const upstream of aggregator.upstreams.list()) {
    if (upstream.state === 'ready') {
      print(`ok      ${upstream.name}: ${upstream.catalog.tools.length} tools`);
      if (upstream.sandboxWarning) print(`warning ${upstream.name}: ${upstream.sandboxWarning}`);
      continue;
    }
    failed++;
    print(`FAILED  ${upstream.name}: ${upstream.lastError ?? upstream.state}`);
    print(`        ${howToFix(upstream.config, upstream.lastError)}`);
  }
  for (const collision of aggregator.registry.collisions) {
    print(
      `renamed ${collision.renamed.server}/${collision.renamed.name} to ${collision.renamed.as}: ${collision.exposed} was taken by ${collision.kept.server}/${collision.kept.name}`,
    );
  }
  for (const conflict of aggregator.registry.uriConflicts) {
    print(`shadowed resource ${conflict.uri} of ${conflict.also}: ${conflict.owner} serves it`);
  }
  return failed > 0 ? 1 : 0;
}

/** What to do about a server that did not start: first a start that ran out of time, then by how it is reached. */
function howToFix(config: ServerConfig, lastError: string | undefined): string {
  const check = whatToCheck(config);
  return startTimedOut(lastError)
    ? `if it is only slow to start (a first npx download, say), raise "connectTimeoutMs" in its entry; otherwise ${check}`
    : check;
}

/** What to check for a server that did not start, by how it is reached. */
function whatToCheck(config: ServerConfig): string {
  if (!isStdioServer(config))
    return `check that the URL ${config.url} is right, that the server there is running, and that its headers (auth) in the config are accepted`;
  const { command } = config;
  if (command.includes(path.sep)) {
    if (!existsSync(path.resolve(config.cwd ?? '.', command)))
      return `${command} does not exist: correct "command" in the config`;
  } else if (findOnPath(command, config.env.PATH ?? process.env.PATH) === undefined) {
    return `${command} was not found on PATH: install it, or give its full path as "command" in the config`;
  }
  return `check that \`${[command, ...config.args].join(' ')}\` runs on its own, and its env and args in the config`;
}
