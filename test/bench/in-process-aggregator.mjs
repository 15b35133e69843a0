// An aggregator in this process over the bench's echo server, called by an in-memory SDK client:
// what the audit and shared-state benches time a proxied call through, each on its own state.
import { Aggregator, parseConfig } from '@toolmesh/aggregator';
import { createLogger } from '@toolmesh/core';
import { connectInMemory } from '@toolmesh/core/testing';
import { ECHO_STDIO } from './aggregator-overhead.mjs';
import { check } from './check.mjs';

/** Starts an aggregator on `state` (closed by stop); `config` goes beside the echo server. */
export async function startInProcess(state, config = {}) {
  const parsed = parseConfig({ mcpServers: { echo: ECHO_STDIO }, ...config });
  const aggregator = await Aggregator.start({
    config: parsed.config,
    servers: parsed.servers,
    state,
    log: createLogger({ level: 'error' }),
    upstream: { pingIntervalMs: 0 },
  });
  const connected = await connectInMemory(aggregator.createSessionServer());
  return {
    aggregator,
    state,
    connected,
    async stop() {
      await connected.close();
      await aggregator.stop();
      await state.close();
    },
  };
}

/** One echo call through `started`, checked. */
export function echoCall(started) {
  return async () => {
    const result = await started.connected.call('echo__echo', { text: 'ping' });
    check(!result.isError && result.content[0]?.text === 'ping', 'the echo call did not answer ping');
  };
}
