// Runs mcp-proxy (npm), a public proxy that serves one stdio server over Streamable HTTP and SSE.
import { createRequire } from 'node:module';
import path from 'node:path';
import { freePort, startProcess } from './processes.mjs';

const require = createRequire(import.meta.url);
const MCP_PROXY_BIN = path.join(
  path.dirname(require.resolve('mcp-proxy/package.json')),
  'dist/bin/mcp-proxy.mjs',
);

export function mcpProxyVersion() {
  return require('mcp-proxy/package.json').version;
}

/** mcp-proxy in front of `command args` (stdio); resolves with its Streamable HTTP URL. */
export async function startMcpProxy({ command, args }) {
  // It takes no --port 0, so it gets a port that was free a moment ago.
  const port = await freePort();
  const running = await startProcess({
    command: process.execPath,
    args: [MCP_PROXY_BIN, '--host', '127.0.0.1', '--port', String(port), '--', command, ...args],
    readyUrl: `http://127.0.0.1:${port}/ping`,
  });
  return { ...running, url: `http://127.0.0.1:${port}/mcp` };
}
