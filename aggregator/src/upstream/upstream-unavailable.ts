import type { Upstream } from './upstream.js';

/** A call or request for a server that cannot take it now: stopped, not started, or (re)starting. */
export class UpstreamUnavailable extends Error {
  constructor(readonly upstream: Upstream) {
    const seconds = upstream.secondsUntilRetry();
    super(
      upstream.state === 'stopped' || upstream.state === 'dormant'
        ? `server ${upstream.name} is ${upstream.state === 'stopped' ? 'stopped' : 'not started'}`
        : `server ${upstream.name} is ${upstream.state === 'starting' ? 'starting' : 'restarting'}, retry in ${seconds} s${
            upstream.lastError ? ` (last error: ${upstream.lastError})` : ''
          }`,
    );
  }
}
