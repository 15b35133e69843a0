import type { Aggregator } from '../aggregator.js';
import { howToFix } from '../upstream/how-to-fix.js';
import type { ServerHistory } from './server-history.js';
import type { ServerRow } from './servers-view.js';

/** This process's downstream servers, now. */
export function serverRows(aggregator: Aggregator, history: ServerHistory, now = Date.now()): ServerRow[] {
  return aggregator.upstreams.list().map((upstream) => {
    const seen = history.of(upstream.name);
    return {
      name: upstream.name,
      state: upstream.state,
      tools: upstream.catalog.tools.length,
      ...(upstream.protocolVersion && { protocolVersion: upstream.protocolVersion }),
      restarts: seen.restarts,
      ...(seen.readySince !== undefined && { readySince: seen.readySince }),
      ...(upstream.state === 'restarting' && { retryAt: now + upstream.secondsUntilRetry() * 1000 }),
      ...(upstream.lastError && { lastError: upstream.lastError }),
      ...(upstream.state !== 'ready' &&
        upstream.lastError && { fix: howToFix(upstream.config, upstream.lastError) }),
      ...(upstream.sandboxWarning && { sandboxWarning: upstream.sandboxWarning }),
    };
  });
}
