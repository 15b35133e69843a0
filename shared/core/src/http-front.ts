import { randomUUID } from 'node:crypto';
import type { Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { localhostHostValidation } from '@modelcontextprotocol/sdk/server/middleware/hostHeaderValidation.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import express, { type NextFunction, type Request, type Response } from 'express';
import { SessionTable } from './http-sessions.js';
import type { Logger } from './logger.js';

export const LOOPBACK_HOSTS = ['127.0.0.1', 'localhost', '::1', '[::1]'];

/** Thrown by a session factory that will not open a session for this request, e.g. an unknown mode in its path. */
export class SessionRefusal extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** Makes the MCP server of one new session; it may read the request (path parameters, query). */
export type SessionFactory = (request: Request) => Server;

export interface HttpFrontOptions {
  /** The MCP server of one session on `/mcp` and on the legacy `/sse`; without it neither is served. */
  createServer?: SessionFactory;
  /**
   * More Streamable HTTP endpoints, express path → server of one session, e.g. `/mcp/discovery`
   * or `/mcp/:mode`; earlier entries win.
   */
  endpoints?: Record<string, SessionFactory>;
  /** Plain HTTP routes beside MCP, e.g. a health check; they pass the Host and Origin checks too. */
  routes?: (app: express.Express) => void;
  host: string;
  port: number;
  log: Logger;
  /** Origins (scheme://host[:port]) a browser may call from besides loopback ones. */
  allowedOrigins?: string[];
  /** A session with no request for this long is closed (default 30 minutes). */
  sessionIdleMs?: number;
  /** Largest JSON-RPC body accepted, e.g. a big `apply_patch`. */
  bodyLimit?: string;
}

export interface HttpFront {
  url: string;
  sseUrl: string;
  sessionCount(): number;
  close(): Promise<void>;
}

function jsonRpcError(res: Response, status: number, message: string): void {
  res.status(status).json({ jsonrpc: '2.0', error: { code: -32000, message }, id: null });
}

/**
 * A browser page can reach a loopback server (DNS rebinding, or a plain cross-origin fetch), so
 * a request that carries a foreign Origin is refused before it reaches MCP.
 */
function originCheck(allowedOrigins: readonly string[]) {
  const allowed = new Set(allowedOrigins.map((origin) => origin.toLowerCase()));
  return (req: Request, res: Response, next: NextFunction) => {
    const origin = req.headers.origin;
    if (origin === undefined) return next();
    let hostname = '';
    try {
      hostname = new URL(origin).hostname.toLowerCase();
    } catch {
      hostname = '';
    }
    if (LOOPBACK_HOSTS.includes(hostname) || allowed.has(origin.toLowerCase())) return next();
    jsonRpcError(
      res,
      403,
      `Origin ${origin} is not allowed. Add it to the server's allowed origins to permit it.`,
    );
  };
}

/**
 * Serves MCP over Streamable HTTP at `/mcp` (stateful sessions: server-to-client requests need
 * them) and the legacy HTTP+SSE transport at `/sse` + `/messages`, one MCP server per session.
 */
export async function startHttpFront(options: HttpFrontOptions): Promise<HttpFront> {
  const { log } = options;
  const app = express();
  const loopback = LOOPBACK_HOSTS.includes(options.host);
  if (loopback) app.use(localhostHostValidation());
  else
    log.warning(
      `listening on ${options.host}: reachable beyond this machine; put authentication in front of it`,
    );
  app.use(originCheck(options.allowedOrigins ?? []));
  app.use(express.json({ limit: options.bodyLimit ?? '64mb' }));

  const idleMs = options.sessionIdleMs ?? 30 * 60_000;
  const tables: SessionTable<StreamableHTTPServerTransport>[] = [];
  const legacy = new Map<string, SSEServerTransport>();

  const serveEndpoint = (endpoint: string, createServer: SessionFactory) => {
    // Sessions belong to the endpoint that opened them.
    const sessions = new SessionTable<StreamableHTTPServerTransport>(idleMs);
    tables.push(sessions);
    const existingSession = async (req: Request, res: Response) => {
      const sessionId = req.headers['mcp-session-id'];
      const transport = typeof sessionId === 'string' ? sessions.use(sessionId, res) : undefined;
      if (!transport) {
        const message =
          typeof sessionId === 'string'
            ? 'Session not found: it ended, expired or never existed. Initialize again.'
            : 'No Mcp-Session-Id header: send an initialize request first.';
        return jsonRpcError(res, typeof sessionId === 'string' ? 404 : 400, message);
      }
      await transport.handleRequest(req, res, req.body);
    };
    app.post(endpoint, async (req, res) => {
      if (typeof req.headers['mcp-session-id'] === 'string') return existingSession(req, res);
      const messages: unknown[] = Array.isArray(req.body) ? req.body : [req.body];
      if (!messages.some((message) => isInitializeRequest(message))) {
        return jsonRpcError(res, 400, 'No Mcp-Session-Id header: send an initialize request first.');
      }
      let server: Server;
      try {
        server = createServer(req);
      } catch (error) {
        if (error instanceof SessionRefusal) return jsonRpcError(res, error.status, error.message);
        throw error;
      }
      const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: randomUUID,
        onsessioninitialized: (id) => sessions.add(id, transport),
      });
      transport.onclose = () => {
        if (transport.sessionId) sessions.delete(transport.sessionId);
        void server.close();
      };
      await server.connect(transport);
      await transport.handleRequest(req, res, req.body);
      // An initialize the transport refused (a wrong Accept header, say) opened no session:
      // close it now, or nothing ever would.
      if (!transport.sessionId) await transport.close();
    });
    app.get(endpoint, existingSession);
    app.delete(endpoint, existingSession);
  };

  const { createServer } = options;
  if (createServer) serveEndpoint('/mcp', createServer);
  for (const [endpoint, createServer] of Object.entries(options.endpoints ?? {}))
    serveEndpoint(endpoint, createServer);
  options.routes?.(app);

  if (createServer) {
    app.get('/sse', async (req, res) => {
      const transport = new SSEServerTransport('/messages', res);
      const server = createServer(req);
      legacy.set(transport.sessionId, transport);
      res.on('close', () => {
        legacy.delete(transport.sessionId);
        void server.close();
      });
      await server.connect(transport);
    });
    app.post('/messages', async (req, res) => {
      const transport = legacy.get(String(req.query.sessionId ?? ''));
      if (!transport) return jsonRpcError(res, 404, 'Unknown sessionId: open /sse first.');
      await transport.handlePostMessage(req, res, req.body);
    });
  }

  // express 5 forwards rejected handlers here; answer instead of crashing the process.
  app.use((error: Error, _req: Request, res: Response, _next: NextFunction) => {
    log.error('HTTP request failed', { error: error.message });
    if (!res.headersSent) jsonRpcError(res, 500, `Internal error: ${error.message}`);
  });

  const httpServer: HttpServer = await new Promise((resolve, reject) => {
    const listening = app.listen(options.port, options.host, () => resolve(listening));
    listening.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        error.code === 'EADDRINUSE'
          ? new Error(
              `${options.host}:${options.port} is already in use: pass --port with another number, or --port 0 for a free one`,
            )
          : error,
      ),
    );
  });
  const sweeper = setInterval(
    () => {
      for (const sessions of tables) sessions.sweep();
    },
    Math.min(60_000, Math.max(1000, idleMs / 4)),
  );
  sweeper.unref();

  const address = httpServer.address() as AddressInfo;
  const hostForUrl = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const base = `http://${hostForUrl}:${address.port}`;

  return {
    url: `${base}/mcp`,
    sseUrl: `${base}/sse`,
    sessionCount: () => tables.reduce((sum, sessions) => sum + sessions.size, legacy.size),
    async close() {
      clearInterval(sweeper);
      const transports = [...tables.flatMap((sessions) => sessions.transports()), ...legacy.values()];
      await Promise.allSettled(transports.map((transport) => transport.close()));
      await new Promise<void>((resolve) => {
        httpServer.close(() => resolve());
        httpServer.closeAllConnections();
      });
    },
  };
}
