import { dataDirectory } from '@toolmesh/core';
import { Aggregator } from '../aggregator.js';
import type { LoadedConfig } from '../config/load.js';
import { openState, stateNotice } from '../state/open-state.js';
import type { AggregatorState } from '../state/state.js';
import { StateUnavailableError } from '../state/state-unavailable.js';
import { CatalogueCache } from '../upstream/catalogue-cache.js';
import { howToFix } from '../upstream/how-to-fix.js';
import type { Upstream } from '../upstream/upstream.js';
import { type Command, flagsOnly, parseFlags, print } from './command.js';
import { configOf, loggerFor, nothingServed, REGISTRY_FLAGS } from './registry-flags.js';
import { stateSettingsOf } from './state-flags.js';
import { stopPromptly } from './stop-promptly.js';

export const doctorCommand: Command = {
  async run(args) {
    const { values, positionals } = parseFlags('doctor', args, REGISTRY_FLAGS);
    flagsOnly('doctor', positionals);
    const loaded = configOf(values);
    const stateLines: string[] = [];
    const state = await checkedState(stateSettingsOf(values, loaded), stateLines);
    const aggregator = await Aggregator.start({
      config: loaded.config,
      servers: loaded.servers,
      workspaces: loaded.workspaces,
      state,
      log: loggerFor(values, 'info'),
      upstream: { pingIntervalMs: 0 },
      // Every server's own answer: each start is bounded by its connect timeout.
      startupWaitMs: Number.POSITIVE_INFINITY,
      catalogueCache: CatalogueCache.inDataDirectory(dataDirectory()),
    });
    try {
      for (const line of stateLines) print(line);
      const failed = stateLines.some((line) => line.startsWith('FAILED'));
      return Math.max(report(aggregator, loaded), failed ? 1 : 0);
    } finally {
      await stopPromptly(aggregator);
    }
  },
};

/**
 * Opens the state and says how each connection stands; when the shared state cannot be opened,
 * the servers are still checked, over a state in memory that nothing else sees.
 */
async function checkedState(
  settings: ReturnType<typeof stateSettingsOf>,
  lines: string[],
): Promise<AggregatorState> {
  const notice = stateNotice(settings);
  if (notice) lines.push(`warning state: ${notice}`);
  let state: AggregatorState;
  try {
    state = await openState(settings);
  } catch (error) {
    if (!(error instanceof StateUnavailableError)) throw error;
    lines.push(`FAILED  ${error.store}: ${error.message}`);
    return openState({ file: ':memory:' });
  }
  const health = await state.health();
  if (!health.redis && !health.postgres) lines.push(`ok      state: SQLite at ${state.location}`);
  for (const [store, seen] of Object.entries(health))
    lines.push(seen.ok ? `ok      ${store}: ${seen.detail}` : `FAILED  ${store}: ${seen.detail}`);
  return state;
}

/** Which revision a server speaks, as a person reads it: the era's name is what decides behaviour. */
function revisionOf(upstream: Upstream): string {
  return upstream.era === 'modern'
    ? `MCP ${upstream.protocolVersion} (stateless)`
    : `MCP ${upstream.protocolVersion} (2025, sessions)`;
}

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
      print(`ok      ${upstream.name}: ${upstream.catalog.tools.length} tools, ${revisionOf(upstream)}`);
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
