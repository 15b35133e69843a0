// Runs mcp-hub (npm), a public aggregator that serves its servers as one legacy HTTP+SSE endpoint.
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { freePort, startProcess } from './processes.mjs';

const require = createRequire(import.meta.url);
const MCP_HUB_BIN = path.join(path.dirname(require.resolve('mcp-hub/package.json')), 'dist/cli.js');

export function mcpHubVersion() {
  return require('mcp-hub/package.json').version;
}

/**
 * At start mcp-hub fetches a marketplace catalogue from the internet unless its cache holds a
 * fresh one; a seeded cache keeps it on loopback like everything else in the bench.
 */
function seedMarketplaceCache(dataHome) {
  const cache = path.join(dataHome, 'mcp-hub', 'cache');
  mkdirSync(cache, { recursive: true });
  const registry = { version: 'bench', generatedAt: Date.now(), totalServers: 1, servers: [{ id: 'none' }] };
  writeFileSync(
    path.join(cache, 'registry.json'),
    JSON.stringify({ registry, lastFetchedAt: Date.now(), serverDocumentation: {} }),
  );
}

/** mcp-hub over `mcpServers`, its state kept in `folder`; resolves with its SSE URL once all are up. */
export async function startMcpHub({ folder, mcpServers }) {
  const config = path.join(folder, 'mcp-hub.json');
  writeFileSync(config, JSON.stringify({ mcpServers }));
  const home = path.join(folder, 'mcp-hub-home');
  seedMarketplaceCache(path.join(home, 'data'));
  const port = await freePort();
  const running = await startProcess({
    command: process.execPath,
    args: [MCP_HUB_BIN, '--port', String(port), '--config', config],
    env: {
      HOME: home,
      XDG_DATA_HOME: path.join(home, 'data'),
      XDG_STATE_HOME: path.join(home, 'state'),
      XDG_CONFIG_HOME: path.join(home, 'config'),
    },
    ready: /(\d+)\/\1 servers started successfully/,
  });
  return { ...running, url: `http://127.0.0.1:${port}/mcp` };
}
