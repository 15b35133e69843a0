import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Logger } from '@toolmesh/core';
import type { Aggregator } from '../aggregator.js';

function clientSnippets(url: string): string {
  return [
    '',
    `toolmesh is serving MCP at ${url}`,
    `  only the discovery tools: ${url}/discovery    health: ${url.replace(/\/mcp$/, '/health')}`,
    '',
    `Claude Code:  claude mcp add --transport http toolmesh ${url}`,
    'Cursor, VS Code and other clients (mcpServers):',
    JSON.stringify({ mcpServers: { toolmesh: { type: 'http', url } } }, null, 2),
    '',
  ].join('\n');
}

/** Serves the aggregator until a signal or (over stdio) the client closing stdin; then stops every child. */
export async function serveAggregator(
  aggregator: Aggregator,
  options: { transport: 'stdio' | 'http'; host: string; port: number; log: Logger },
): Promise<void> {
  let close: () => Promise<void>;
  if (options.transport === 'stdio') {
    const server = aggregator.createSessionServer();
    await server.connect(new StdioServerTransport());
    close = () => server.close();
  } else {
    const { startHttpFront } = await import('@toolmesh/core/http');
    const front = await startHttpFront({
      createServer: () => aggregator.createSessionServer(),
      endpoints: {
        '/mcp/all': () => aggregator.createSessionServer('all'),
        '/mcp/discovery': () => aggregator.createSessionServer('discovery'),
      },
      routes: (app) => {
        app.get('/health', (_req, res) => {
          const servers = aggregator.upstreams.list().map((upstream) => ({
            name: upstream.name,
            state: upstream.state,
            tools: upstream.catalog.tools.length,
            ...(upstream.lastError && { lastError: upstream.lastError }),
          }));
          res
            .status(servers.every((server) => server.state === 'ready') ? 200 : 503)
            .json({ servers, sessions: aggregator.sessionCount });
        });
      },
      host: options.host,
      port: options.port,
      log: options.log,
    });
    process.stderr.write(`${clientSnippets(front.url)}\n`);
    options.log.info(`listening on ${front.url}`);
    close = () => front.close();
  }

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await close().catch(() => undefined);
    await aggregator.stop();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
  if (options.transport === 'stdio') {
    process.stdin.once('end', () => void stop());
    process.stdin.once('close', () => void stop());
  }
}
