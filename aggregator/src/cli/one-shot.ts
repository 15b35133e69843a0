import { Aggregator } from '../aggregator.js';
import { openState } from '../state/open-state.js';
import { connectInProcess, type InProcessClient } from './in-process-client.js';
import {
  checkSession,
  configOf,
  loggerFor,
  type RegistryFlags,
  type SessionFlags,
  sessionOf,
} from './registry-flags.js';

/**
 * Runs `use` as one client session of a registry started for it, then stops every server it
 * started: `toolmesh tools`, `search` and `call`.
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
    state: openState({}),
    log: loggerFor(flags, 'error'),
    upstream: { pingIntervalMs: 0 },
    // One answer from every server, not from those that were quick: each start is still bounded by its connect timeout.
    startupWaitMs: Number.POSITIVE_INFINITY,
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
    await aggregator.stop();
    await aggregator.state.close();
  }
}
