import type { Aggregator } from '../aggregator.js';
import { howToFix } from '../upstream/how-to-fix.js';
import type { ServerHistory } from './server-history.js';

/**
 * One downstream server as the Servers page shows it. Times are epoch milliseconds, so that a
 * row another replica published a moment ago still reads right when the page shows it.
 */
export interface ServerRow {
  name: string;
  state: string;
  tools: number;
  /** The MCP revision toolmesh speaks with it, once connected. */
  protocolVersion?: string;
  restarts: number;
  readySince?: number;
  /** When a restarting server is tried next. */
  retryAt?: number;
  lastError?: string;
  /** What toolmesh doctor would say to do about it. */
  fix?: string;
  sandboxWarning?: string;
}

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
