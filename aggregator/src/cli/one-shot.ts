import { dataDirectory } from '@toolmesh/core';
import { Aggregator } from '../aggregator.js';
import { openState } from '../state/open-state.js';
import { CatalogueCache } from '../upstream/catalogue-cache.js';
import { connectInProcess, type InProcessClient } from './in-process-client.js';
import {
  checkSession,
  configOf,
  loggerFor,
  type RegistryFlags,
  type SessionFlags,
  sessionOf,
} from './registry-flags.js';
import { stateSettingsOf } from './state-flags.js';
import { stopPromptly } from './stop-promptly.js';

/**
 * Runs `use` as one client session of a registry made for it, then stops every server it
 * started: `toolmesh tools`, `search` and `call`. Servers whose catalogue is cached (from the
 * last registry built with this config) are listed from the cache and not started unless a
 * call needs them; the others are started, and waited for.
 */
export async function withOneShotSession<T>(
  flags: RegistryFlags & SessionFlags,
  use: (aggregator: Aggregator, session: InProcessClient) => Promise<T>,
): Promise<T> {
  const loaded = configOf(flags);
  const aggregator = await Aggregator.start({
    config: loaded.config,
    servers: loaded.servers,
    workspaces: loaded.workspaces,
    state: await openState(stateSettingsOf(flags, loaded)),
    log: loggerFor(flags, 'error'),
    upstream: { pingIntervalMs: 0 },
    // One answer from every server, not from those that were quick: each start is still bounded by its connect timeout.
    startupWaitMs: Number.POSITIVE_INFINITY,
    catalogueCache: CatalogueCache.inDataDirectory(dataDirectory()),
    fromCache: true,
  });
  try {
    checkSession(aggregator, flags);
    const session = await connectInProcess(
      aggregator.createSessionServer({ exposure: 'all', ...sessionOf(flags) }),
    );
    try {
      return await use(aggregator, session);
    } finally {
      await session.close();
    }
  } finally {
    await stopPromptly(aggregator);
  }
}

/** Says, on stderr, that the tools listed come from the cache, and how old it is. */
export function noteCacheAge(aggregator: Aggregator, now = Date.now()): void {
  if (aggregator.cachedSince === undefined) return;
  const minutes = Math.round((now - aggregator.cachedSince) / 60_000);
  const age =
    minutes < 1 ? 'less than a minute' : minutes < 120 ? `${minutes} min` : `${Math.round(minutes / 60)} h`;
  process.stderr.write(
    `(tools listed from the catalogue cached ${age} ago, without starting their servers; toolmesh doctor or serve refreshes it)\n`,
  );
}
