import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Logger } from '@toolmesh/core';
import type { Aggregator } from '../aggregator.js';
import { approvalsApi } from '../front/approvals-api.js';
import type { Exposure } from '../front/session.js';

function clientSnippets(url: string, modes: string[]): string {
  return [
    '',
    `toolmesh is serving MCP at ${url}`,
    `  only the discovery tools: ${url}/discovery    health: ${url.replace(/\/mcp$/, '/health')}`,
    `  in a mode: ${modes.map((mode) => `${url}/${mode}`).join('  ')}`,
    '',
    `Claude Code:  claude mcp add --transport http toolmesh ${url}`,
    'Cursor, VS Code and other clients (mcpServers):',
    JSON.stringify({ mcpServers: { toolmesh: { type: 'http', url } } }, null, 2),
    '',
  ].join('\n');
}

export interface ServeOptions {
  transport: 'stdio' | 'http';
  host: string;
  port: number;
  /** The mode of the stdio session; HTTP sessions take theirs from the endpoint path. */
  mode?: string;
  /** The workspace the stdio session is bound to; HTTP sessions take theirs from `?workspace=`. */
  workspace?: string;
  log: Logger;
}

/** Serves the aggregator until a signal or (over stdio) the client closing stdin; then stops every child. */
export async function serveAggregator(aggregator: Aggregator, options: ServeOptions): Promise<void> {
  let close: () => Promise<void>;
  if (options.transport === 'stdio') {
    const server = aggregator.createSessionServer({
      ...(options.mode && { mode: options.mode }),
      ...(options.workspace && { workspace: options.workspace }),
    });
    await server.connect(new StdioServerTransport());
    close = () => server.close();
  } else {
    const { SessionRefusal, startHttpFront } = await import('@toolmesh/core/http');
    // Mode and workspace are the operator's choice, made by the URL a client is given:
    // /mcp/plan, /mcp/plan/discovery, /mcp/review?workspace=web.
    type SessionRequest = { params: Record<string, unknown>; query: Record<string, unknown> };
    const session = (exposure?: Exposure) => (request: SessionRequest) => {
      const mode = request.params.mode as string | undefined;
      const workspace = typeof request.query.workspace === 'string' ? request.query.workspace : undefined;
      if (mode !== undefined && !aggregator.policy.table.has(mode)) {
        throw new SessionRefusal(
          404,
          `No mode named ${mode}. Endpoints: ${aggregator.policy.table
            .names()
            .map((name) => `/mcp/${name}`)
            .join(', ')}.`,
        );
      }
      if (workspace !== undefined && !aggregator.workspaces.get(workspace)) {
        throw new SessionRefusal(
          404,
          `No workspace named ${workspace}. Workspaces: ${aggregator.workspaces.workspaces.map((known) => known.id).join(', ')}.`,
        );
      }
      return aggregator.createSessionServer({
        ...(exposure && { exposure }),
        ...(mode && { mode }),
        ...(workspace && { workspace }),
        transport: 'http',
      });
    };
    const front = await startHttpFront({
      createServer: session(),
      endpoints: {
        '/mcp/all': session('all'),
        '/mcp/discovery': session('discovery'),
        '/mcp/:mode': session(),
        '/mcp/:mode/all': session('all'),
        '/mcp/:mode/discovery': session('discovery'),
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
        approvalsApi(aggregator.state)(app);
      },
      host: options.host,
      port: options.port,
      log: options.log,
    });
    process.stderr.write(`${clientSnippets(front.url, aggregator.policy.table.names())}\n`);
    options.log.info(`listening on ${front.url}`);
    close = () => front.close();
  }

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await close().catch(() => undefined);
    await aggregator.stop();
    await aggregator.state.close().catch(() => undefined);
    process.exit(0);
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
  if (options.transport === 'stdio') {
    process.stdin.once('end', () => void stop());
    process.stdin.once('close', () => void stop());
  }
}
