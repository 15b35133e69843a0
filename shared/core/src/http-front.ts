import { randomUUID } from 'node:crypto';
import {
  createServer as createHttpServer,
  type Server as HttpServer,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Server as LegacyOnlyServer } from '@modelcontextprotocol/sdk/server/index.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { type InitializeRequest, isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Server } from '@modelcontextprotocol/server';
import express, { type NextFunction, type Request, type Response } from 'express';
import { onEventStreamOpened } from './event-stream-opened.js';
import { guardRequestParams } from './guard-request-params.js';
import { SessionTable } from './http-sessions.js';
import type { Logger } from './logger.js';
import { modernLeg } from './modern-leg.js';
import { readWholeBody } from './read-whole-body.js';
import { replayInitialize, resumedTransport } from './resumed-session.js';
import { SessionTransport } from './session-transport.js';
import { DEFAULT_MAX_MESSAGE_BYTES } from './stdio-line-transport.js';
import { isModernRequest } from './web-exchange.js';

export const LOOPBACK_HOSTS = ['127.0.0.1', 'localhost', '::1', '[::1]'];

/**
 * Thrown to answer a request with an HTTP error instead of serving it: by a session factory
 * (an unknown mode in the path), or by authentication (401, 403, 429 with Retry-After).
 */
export class SessionRefusal extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/** Who sent a request, as the front's `authenticate` established. */
export interface Caller {
  identity: string;
  /**
   * What a session is bound to, when it is not the identity: the credential itself (a token's
   * hash), so two credentials that share a name cannot use each other's sessions.
   */
  key?: string;
}

function ownerOf(request: Request): string | undefined {
  const caller = callers.get(request);
  return caller && (caller.key ?? caller.identity);
}

const callers = new WeakMap<Request, Caller>();

/** The caller `authenticate` found for this request; undefined when the front has no authentication. */
export function callerOf(request: Request): Caller | undefined {
  return callers.get(request);
}

/**
 * An MCP server of the SDK's v2 packages, which answers both protocol eras, or of its v1 package,
 * which speaks only the 2025 revisions.
 */
export type SessionServer = Server | LegacyOnlyServer;

/**
 * Makes the MCP server of one new 2025 session, or of one 2026-07-28 request; it may read the
 * request (path parameters, query, caller).
 */
export type SessionFactory<S extends SessionServer = SessionServer> = (request: Request) => S;

/** What a process needs to carry on a 2025 session another process opened. */
export interface ResumedSession<S extends SessionServer = SessionServer> {
  server: S;
  /** Who may use it (see Caller.key), as when it was opened. */
  owner: string | undefined;
  /** The client's initialize request, replayed into the new server: capabilities, version. */
  initialize: InitializeRequest['params'];
}

/**
 * Hooks by which several processes behind one balancer share their 2025 Streamable HTTP
 * sessions (the aggregator's fleet): a request for a session this process does not hold is
 * forwarded to the one that does, or resumed here when that one is gone.
 */
export interface SharedSessions<S extends SessionServer = SessionServer> {
  /** Answers a request for an endpoint's sessions itself (true), e.g. 503 while this process may not serve them. */
  intercept(req: Request, res: Response): boolean;
  /** Answers a new session's initialize elsewhere (true), e.g. while this process drains. */
  divert(req: Request, res: Response): Promise<boolean>;
  /** A session id this process does not hold: 'answered' (forwarded), one to resume here, or undefined (not found). */
  missing(
    sessionId: string,
    req: Request,
    res: Response,
  ): Promise<'answered' | ResumedSession<S> | undefined>;
  opened(
    sessionId: string,
    server: S,
    owner: string | undefined,
    initialize: InitializeRequest['params'],
  ): Promise<void>;
  /** The session ended here for good: its client deleted it, or it idled out. */
  ended(sessionId: string): void;
  /**
   * A legacy `/sse` stream is opening here: recorded before its client hears where to post, so
   * a post that reaches another process is passed on to this one. A stream cannot move, so
   * such a session is never resumed elsewhere; its client opens `/sse` again.
   */
  streamOpening(sessionId: string): Promise<void>;
  streamClosed(sessionId: string): void;
  /** A post for a `/sse` stream this process does not hold: 'answered' once passed on to the process that holds it. */
  streamElsewhere(sessionId: string, req: Request, res: Response): Promise<'answered' | undefined>;
  /**
   * Answers a 2026-07-28 request that belongs to another process elsewhere (true): one that
   * resumes what that process holds, such as a call waiting there for its client's answer.
   */
  routeModern?(req: Request, res: Response): Promise<boolean>;
}

/** Hands a request `beforeRoutes` did not answer on to the app, with its body when it read it. */
export type ToTheApp = (body?: Buffer) => void;

export interface HttpFrontOptions<S extends SessionServer = SessionServer> {
  /** The MCP server of one session on `/mcp` and on the legacy `/sse`; without it neither is served. */
  createServer?: SessionFactory<S>;
  /**
   * More Streamable HTTP endpoints, express path → server of one session, e.g. `/mcp/discovery`
   * or `/mcp/:mode`; earlier entries win.
   */
  endpoints?: Record<string, SessionFactory<S>>;
  /**
   * Also serve 2026-07-28 requests on the Streamable HTTP endpoints: each one by a server of its
   * own, with no session, so any process of the same server can answer it. Needs servers of the
   * SDK's v2 packages; without it such a request is answered as one that did not initialize.
   */
  modernEra?: boolean;
  /** Plain HTTP routes beside MCP; they pass the Host, Origin and authentication checks too. */
  routes?: (app: express.Express) => void;
  /**
   * Routes anyone on the network may reach (a health check), each on a path of its own; the Host
   * and Origin checks still apply. What every request must pass goes in `admit`.
   */
  publicRoutes?: (app: express.Express) => void;
  /**
   * Passes on every request after the Host and Origin checks and before authentication, or
   * answers it (a rate limit's 429), as express middleware does.
   */
  admit?: (req: Request, res: Response, next: NextFunction) => unknown;
  /**
   * Sees each request the Host and Origin checks let through before the app routes it, for what
   * must cost as little as a bare proxy (a process passing a request on to the one that holds its
   * session): it answers the request, or hands it to the app with `next`, giving the body if it
   * read it (then parsed as the app parses any).
   */
  beforeRoutes?: (req: IncomingMessage, res: ServerResponse, next: ToTheApp) => void;
  /**
   * Who sends each request to any other route, or a SessionRefusal (401, 403, 429). Runs before
   * the body is read; a session may then only be used by the caller that opened it.
   */
  authenticate?: (request: Request) => Caller;
  host: string;
  port: number;
  log: Logger;
  /** Origins (scheme://host[:port]) a browser may call from besides loopback ones. */
  allowedOrigins?: string[];
  /** A session with no request for this long is closed (default 30 minutes). */
  sessionIdleMs?: number;
  /** Largest request body accepted (a big `apply_patch`, say); a bigger one gets 413 before it is read. */
  maxBodyBytes?: number;
  /**
   * A session's client can now be reached outside its own requests: on Streamable HTTP once it
   * opens its event stream (GET), on the legacy transport as soon as it connects. Before that a
   * server-to-client request outside a call is lost.
   */
  onEventStream?: (server: S) => void;
  /** Share the Streamable HTTP sessions with other processes of the same server. */
  sharedSessions?: SharedSessions<S>;
}

export interface HttpFront {
  url: string;
  sseUrl: string;
  sessionCount(): number;
  /**
   * Takes no new connection; those open are served until close() (a process leaving its fleet).
   * Resolves once every connection has closed.
   */
  stopAccepting(): Promise<void>;
  /** Stops listening and ends every session and connection. */
  close(): Promise<void>;
  /**
   * Takes every Streamable HTTP session off this process without ending it for its client
   * (another process carries it on): requests in flight still get their answers; `end` closes
   * what is left.
   */
  releaseSessions(): { ids: string[]; end(): Promise<void> };
}

const JSON_RPC_PARSE_ERROR = -32700;

function jsonRpcError(res: Response, status: number, message: string, code = -32000): void {
  res.status(status).json({ jsonrpc: '2.0', error: { code, message }, id: null });
}

function refuse(res: Response, refusal: SessionRefusal): void {
  res.set(refusal.headers);
  jsonRpcError(res, refusal.status, refusal.message);
}

function authentication(authenticate: (request: Request) => Caller) {
  return (req: Request, res: Response, next: NextFunction) => {
    try {
      callers.set(req, authenticate(req));
    } catch (error) {
      if (error instanceof SessionRefusal) return refuse(res, error);
      return next(error);
    }
    next();
  };
}

/** A middleware of the chain every request passes (see hotLane). */
type Step = (req: Request, res: Response, next: NextFunction) => unknown;
type ErrorStep = (error: unknown, req: Request, res: Response, next: NextFunction) => unknown;

/**
 * The way a POST to an MCP endpoint of a fixed path (`/mcp`, `/mcp/all`: the one request of
 * every call) takes through the app: its first middleware, which runs the middleware every
 * request passes (Host and Origin, `admit`, authentication, the body) one after the other
 * itself, then the endpoint, as express would reach them, without express routing the request
 * past each of them and the routes between (its router's passes were about a sixth of the
 * front's CPU per call). A check's failure goes on to the app's error handlers as any does; an
 * endpoint's goes to `lastResort`, the app's last error handler, as from a route, past the error
 * handlers of the middleware before the routes (the body's). An endpoint that a public route (or
 * a middleware of every path among them) may answer first is left to express.
 */
function hotLane(lastResort: ErrorStep) {
  let checks: readonly Step[] = [];
  let publicLayers: RouterLayer[] = [];
  const posts = new Map<string, (req: Request, res: Response) => Promise<void>>();
  const endpointLayers: RouterLayer[] = [];
  const hot = new Map<string, (req: Request, res: Response) => Promise<void>>();
  const failed = (next: NextFunction) => (error: unknown) => next(error || new Error('Rejected promise'));
  return {
    /** Runs `add` (which adds the public routes to `app`), noting the layers it added. */
    publicRoutes(app: express.Express, add: () => void) {
      const { stack } = app.router as unknown as { stack: RouterLayer[] };
      const before = stack.length;
      add();
      publicLayers = stack.slice(before);
    },
    /** The middleware every request passes, in their order. */
    passes(steps: readonly Step[]) {
      checks = steps;
    },
    /**
     * The POST handler of an endpoint, just added to `app` as a route: one of a fixed path may
     * take the lane, unless an endpoint added before it (say `/mcp/:mode`) answers its path first.
     */
    endpoint(app: express.Express, path: string, post: (req: Request, res: Response) => Promise<void>) {
      const { stack } = app.router as unknown as { stack: RouterLayer[] };
      const fixed = !/[:*?()[\]{}]/.test(path);
      if (fixed && !endpointLayers.some((layer) => layer.match(path))) posts.set(path, post);
      endpointLayers.push(stack[stack.length - 1] as RouterLayer);
    },
    /**
     * Every endpoint is known: those no public route may answer first take the lane (a
     * middleware of every path matches them all).
     */
    open() {
      for (const [path, post] of posts)
        if (!publicLayers.some((layer) => layer.match(path))) hot.set(path, post);
    },
    handle(req: Request, res: Response, next: NextFunction) {
      if (req.method !== 'POST') return next();
      const query = req.url.indexOf('?');
      const post = hot.get(query === -1 ? req.url : req.url.slice(0, query));
      if (!post) return next();
      let at = 0;
      const step = (error?: unknown): void => {
        // As express's router: a falsy error goes on.
        if (error) {
          next(error);
          return;
        }
        const current = checks[at++];
        if (!current) {
          post(req, res).catch((error: unknown) =>
            lastResort(error || new Error('Rejected promise'), req, res, next),
          );
          return;
        }
        try {
          const ran = current(req, res, step);
          if (ran instanceof Promise) ran.catch(failed(next));
        } catch (thrown) {
          next(thrown);
        }
      };
      step();
    },
  };
}

/** What the lane asks of an express 5 router's layer: whether it may answer a path. */
interface RouterLayer {
  match(path: string): boolean;
}

/** body-parser's failures are the client's: say which and how to fix it, as JSON-RPC errors. */
function bodyErrorHandler(maxBodyBytes: number) {
  return (
    error: Error & { type?: string; status?: number },
    _req: Request,
    res: Response,
    next: NextFunction,
  ) => {
    if (error.type === 'entity.too.large')
      return jsonRpcError(
        res,
        413,
        `The request body is larger than this server accepts (${maxBodyBytes} bytes). Send less per request, e.g. split the edit.`,
      );
    if (error.type === 'entity.parse.failed')
      return jsonRpcError(
        res,
        400,
        `Parse error: the body is not valid JSON (${error.message}).`,
        JSON_RPC_PARSE_ERROR,
      );
    if (error.status !== undefined && error.status >= 400 && error.status < 500)
      return jsonRpcError(res, error.status, `Bad request: ${error.message}.`);
    next(error);
  };
}

/**
 * Why a loopback server refuses a request's Host: a DNS rebinding attack reaches it under another
 * name. Undefined when the Host names this machine.
 */
function loopbackHostRefusal(host: string | undefined): string | undefined {
  if (!host) return 'Missing Host header';
  let hostname: string;
  try {
    hostname = new URL(`http://${host}`).hostname;
  } catch {
    return `Invalid Host header: ${host}`;
  }
  return LOOPBACK_HOSTS.includes(hostname) ? undefined : `Invalid Host: ${hostname}`;
}

/**
 * Why a request's Origin is refused: a browser page can reach a loopback server (DNS rebinding,
 * or a plain cross-origin fetch). Undefined when there is none, or it is loopback or allowed.
 */
function originRefusal(origin: string | undefined, allowed: ReadonlySet<string>): string | undefined {
  if (origin === undefined) return undefined;
  let hostname = '';
  try {
    hostname = new URL(origin).hostname.toLowerCase();
  } catch {
    hostname = '';
  }
  if (LOOPBACK_HOSTS.includes(hostname) || allowed.has(origin.toLowerCase())) return undefined;
  return `Origin ${origin} is not allowed. Add it to the server's allowed origins to permit it.`;
}

/** Why a request is refused before it reaches MCP, by its Host (on loopback) and its Origin; undefined when it may go on. */
function gate(loopback: boolean, allowedOrigins: readonly string[]) {
  const allowed = new Set(allowedOrigins.map((origin) => origin.toLowerCase()));
  // Clients send one Host over and over: the last one allowed is not parsed again.
  let hostAllowed: string | undefined;
  const hostRefusal = (host: string | undefined) => {
    if (!loopback || (host !== undefined && host === hostAllowed)) return undefined;
    const refusal = loopbackHostRefusal(host);
    if (refusal === undefined) hostAllowed = host;
    return refusal;
  };
  return (req: IncomingMessage): string | undefined =>
    hostRefusal(req.headers.host) ?? originRefusal(req.headers.origin, allowed);
}

/**
 * express.json, but for a body `beforeRoutes` read already (in `readAhead`): parsed here, and a
 * body that is not JSON answered as express.json's failure is.
 */
function jsonBodies(maxBodyBytes: number, readAhead: WeakMap<IncomingMessage, Buffer>) {
  const json = express.json({ limit: maxBodyBytes });
  const parse = (req: Request, body: Buffer, next: NextFunction) => {
    try {
      req.body = strictJson(body.toString('utf8'));
    } catch (error) {
      return next(Object.assign(error as Error, { type: 'entity.parse.failed', status: 400 }));
    }
    next();
  };
  return (req: Request, res: Response, next: NextFunction) => {
    const body = readAhead.get(req);
    if (body !== undefined) return parse(req, body, next);
    if (!plainJsonBody(req, maxBodyBytes)) return json(req, res, next);
    void readWholeBody(req).then((whole) => {
      // The client went away while it sent the body: nobody waits for an answer.
      if (whole) parse(req, whole, next);
    });
  };
}

/**
 * The JSON `text` holds, read as express.json reads it: a byte order mark passed over, and only
 * an object or an array taken (a JSON-RPC body is one or the other).
 */
function strictJson(text: string): unknown {
  const json = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const first = /\S/.exec(json);
  if (first && first[0] !== '{' && first[0] !== '[')
    throw new SyntaxError(
      `Unexpected token ${JSON.stringify(first[0])} at position ${first.index}: a body is an object or an array`,
    );
  return JSON.parse(json);
}

/**
 * Whether the body is the kind every client sends: JSON with no charset or encoding named, of a
 * length given and allowed. Such a body is read and parsed here, as one read ahead is, without
 * body-parser's passes (its type, charset, encoding and length checks: about a tenth of the
 * front's CPU per call); any other goes to express.json.
 */
function plainJsonBody(req: Request, maxBodyBytes: number): boolean {
  const length = Number(req.headers['content-length']);
  return (
    req.method === 'POST' &&
    req.headers['content-type'] === 'application/json' &&
    req.headers['content-encoding'] === undefined &&
    length > 0 &&
    length <= maxBodyBytes
  );
}

/** The front cannot listen where it was asked to; the message says why and what to pass instead. */
export class ListenError extends Error {
  override name = 'ListenError';

  constructor(
    readonly host: string,
    readonly port: number,
    readonly code: string | undefined,
    cause: Error,
  ) {
    const address = `${host}:${port}`;
    super(
      code === 'EADDRINUSE'
        ? `${address} is already in use by another process: pass --port with another number, or --port 0 for a free one`
        : code === 'EACCES'
          ? `not allowed to listen on ${address} (ports below 1024 need privileges): pass --port with a number above 1023, or --port 0 for a free one`
          : code === 'EADDRNOTAVAIL'
            ? `cannot listen on ${address}: ${host} is not an address of this machine; pass --host 127.0.0.1 or another local address`
            : `cannot listen on ${address}: ${cause.message}`,
      { cause },
    );
  }
}

/**
 * Resolves once listening, rejects when the address cannot be had. Not express's `listen`: its
 * callback also fires on an error, which would resolve with a server that has no address.
 */
function listen(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
  host: string,
  port: number,
): Promise<HttpServer> {
  const server = createHttpServer(handler);
  return new Promise((resolve, reject) => {
    const failed = (error: NodeJS.ErrnoException) => reject(new ListenError(host, port, error.code, error));
    server.once('error', failed);
    server.listen(port, host, () => {
      server.off('error', failed);
      resolve(server);
    });
  });
}

/**
 * Serves MCP over Streamable HTTP at `/mcp` (stateful sessions: server-to-client requests need
 * them) and the legacy HTTP+SSE transport at `/sse` + `/messages`, one MCP server per session.
 */
export async function startHttpFront<S extends SessionServer>(
  options: HttpFrontOptions<S>,
): Promise<HttpFront> {
  const { log } = options;
  const app = express();
  app.disable('x-powered-by');
  const loopback = LOOPBACK_HOSTS.includes(options.host);
  if (!loopback && !options.authenticate)
    log.warning(
      `listening on ${options.host}: reachable beyond this machine; put authentication in front of it`,
    );
  const refusal = gate(loopback, options.allowedOrigins ?? []);
  // express 5 forwards rejected handlers here; answer instead of crashing the process.
  const requestFailed = (error: Error, _req: Request, res: Response, _next: NextFunction) => {
    if (error instanceof SessionRefusal) return refuse(res, error);
    log.error('HTTP request failed', { error: error.message });
    if (!res.headersSent) jsonRpcError(res, 500, `Internal error: ${error.message}`);
  };
  const lane = hotLane(requestFailed as ErrorStep);
  app.use(lane.handle);
  const checks: Step[] = [];
  const check = (step: Step) => {
    checks.push(step);
    app.use(step);
  };
  check((req, res, next) => {
    const why = refusal(req);
    if (why === undefined) return next();
    jsonRpcError(res, 403, why);
  });
  lane.publicRoutes(app, () => options.publicRoutes?.(app));
  if (options.admit) check(options.admit);
  if (options.authenticate) check(authentication(options.authenticate));
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  const readAhead = new WeakMap<IncomingMessage, Buffer>();
  check(jsonBodies(maxBodyBytes, readAhead));
  lane.passes(checks);
  app.use(bodyErrorHandler(maxBodyBytes));

  const idleMs = options.sessionIdleMs ?? 30 * 60_000;
  const shared = options.sharedSessions;
  const tables: SessionTable<SessionTransport>[] = [];
  const legacy = new Map<string, { transport: SSEServerTransport; owner: string | undefined }>();

  const modernHandlers: ReturnType<typeof modernLeg>[] = [];
  const madeFor =
    (createServer: SessionFactory<S>) =>
    (req: Request, res: Response): Server | undefined => {
      try {
        return createServer(req) as Server;
      } catch (error) {
        if (!(error instanceof SessionRefusal)) throw error;
        refuse(res, error);
        return undefined;
      }
    };

  const serveEndpoint = (endpoint: string, createServer: SessionFactory<S>) => {
    // Sessions belong to the endpoint that opened them.
    const sessions = new SessionTable<SessionTransport>(idleMs);
    tables.push(sessions);
    const serverOf = new WeakMap<SessionTransport, S>();
    const modern = options.modernEra ? modernLeg(madeFor(createServer), { maxBodyBytes, log }) : undefined;
    if (modern) modernHandlers.push(modern);
    const resuming = new Map<string, Promise<void>>();
    const resume = async (sessionId: string, resumed: ResumedSession<S>) => {
      const transport = resumedTransport(sessionId);
      await (resumed.server as LegacyOnlyServer).connect(transport);
      guardRequestParams(transport);
      await replayInitialize(transport, resumed.initialize);
      adopt(sessionId, transport, resumed.server, resumed.owner);
    };
    const adopt = (sessionId: string, transport: SessionTransport, server: S, owner?: string) => {
      sessions.add(sessionId, transport, owner);
      serverOf.set(transport, server);
      // The server's own close handler (set by connect, which comes first) must still run: it is
      // what tells the server, and so its owner, that the session is over.
      const closeServer = transport.onclose;
      transport.onclose = () => {
        if (sessions.has(sessionId)) {
          sessions.delete(sessionId);
          shared?.ended(sessionId);
        }
        if (closeServer) closeServer();
        else void server.close();
      };
    };
    const existingSession = async (req: Request, res: Response) => {
      const sessionId = req.headers['mcp-session-id'];
      if (shared?.intercept(req, res)) return;
      if (typeof sessionId === 'string' && shared && !sessions.has(sessionId)) {
        const found = await shared.missing(sessionId, req, res);
        if (found === 'answered') return;
        // Requests that arrive together for a session to resume wait for the one resumption.
        if (found && !sessions.has(sessionId) && !resuming.has(sessionId))
          resuming.set(
            sessionId,
            resume(sessionId, found).finally(() => resuming.delete(sessionId)),
          );
        await resuming.get(sessionId);
      }
      if (typeof sessionId === 'string' && sessions.isForeign(sessionId, ownerOf(req)))
        return jsonRpcError(
          res,
          403,
          'This session was opened with another token: use that token, or initialize a session of your own.',
        );
      const transport = typeof sessionId === 'string' ? sessions.use(sessionId, res) : undefined;
      if (!transport) {
        const message =
          typeof sessionId === 'string'
            ? 'Session not found: it ended, expired or never existed. Initialize again.'
            : 'No Mcp-Session-Id header: send an initialize request first.';
        return jsonRpcError(res, typeof sessionId === 'string' ? 404 : 400, message);
      }
      const server = serverOf.get(transport);
      const { onEventStream } = options;
      if (req.method === 'GET' && server && onEventStream)
        onEventStreamOpened(res, () => onEventStream(server));
      await transport.handleRequest(req, res, req.body);
    };
    const post = async (req: Request, res: Response) => {
      if (typeof req.headers['mcp-session-id'] === 'string') return existingSession(req, res);
      if (modern && isModernRequest(req)) {
        if (await shared?.routeModern?.(req, res)) return;
        return modern.serve(req, res);
      }
      const messages: unknown[] = Array.isArray(req.body) ? req.body : [req.body];
      const initialize = messages.find(isInitializeRequest);
      if (!initialize) {
        return jsonRpcError(res, 400, 'No Mcp-Session-Id header: send an initialize request first.');
      }
      if (shared && (shared.intercept(req, res) || (await shared.divert(req, res)))) return;
      let server: S;
      try {
        server = createServer(req);
      } catch (error) {
        if (error instanceof SessionRefusal) return refuse(res, error);
        throw error;
      }
      const owner = ownerOf(req);
      const transport: SessionTransport = new SessionTransport({
        sessionIdGenerator: randomUUID,
        // Recorded before the client hears of the session, so any process can find it next.
        onsessioninitialized: async (id) => {
          adopt(id, transport, server, owner);
          await shared?.opened(id, server, owner, initialize.params);
        },
      });
      transport.onclose = () => void server.close();
      // A v2 server serves a 2025 session over the same transports as a v1 one.
      await (server as LegacyOnlyServer).connect(transport);
      guardRequestParams(transport);
      await transport.handleRequest(req, res, req.body);
      // An initialize the transport refused (a wrong Accept header, say) opened no session:
      // close it now, or nothing ever would.
      if (!transport.sessionId) await transport.close();
    };
    app.post(endpoint, post);
    lane.endpoint(app, endpoint, post);
    app.get(endpoint, existingSession);
    app.delete(endpoint, existingSession);
  };

  const { createServer } = options;
  if (createServer) serveEndpoint('/mcp', createServer);
  for (const [endpoint, createServer] of Object.entries(options.endpoints ?? {}))
    serveEndpoint(endpoint, createServer);
  lane.open();
  options.routes?.(app);

  if (createServer) {
    app.get('/sse', async (req, res) => {
      if (shared?.intercept(req, res)) return;
      let server: S;
      try {
        server = createServer(req);
      } catch (error) {
        if (error instanceof SessionRefusal) return refuse(res, error);
        throw error;
      }
      const transport = new SSEServerTransport('/messages', res);
      const { sessionId } = transport;
      try {
        await shared?.streamOpening(sessionId);
      } catch (error) {
        void server.close();
        res.set('Retry-After', '1');
        return jsonRpcError(
          res,
          503,
          `The stream could not be shared with the other processes (${(error as Error).message}): retry shortly.`,
        );
      }
      legacy.set(sessionId, { transport, owner: ownerOf(req) });
      res.on('close', () => {
        legacy.delete(sessionId);
        shared?.streamClosed(sessionId);
        void server.close();
      });
      // A v2 server serves a 2025 session over the same transports as a v1 one.
      await (server as LegacyOnlyServer).connect(transport);
      guardRequestParams(transport);
      options.onEventStream?.(server);
    });
    app.post('/messages', async (req, res) => {
      const sessionId = String(req.query.sessionId ?? '');
      const session = legacy.get(sessionId);
      if (!session) {
        if (shared && (shared.intercept(req, res) || (await shared.streamElsewhere(sessionId, req, res))))
          return;
        return jsonRpcError(res, 404, 'Unknown sessionId: open /sse first.');
      }
      if (session.owner !== ownerOf(req))
        return jsonRpcError(
          res,
          403,
          'This session was opened with another token: use that token, or open /sse with yours.',
        );
      await session.transport.handlePostMessage(req, res, req.body);
    });
  }

  app.use(requestFailed);

  const { beforeRoutes } = options;
  const httpServer = await listen(
    beforeRoutes
      ? (req, res) => {
          // A request the gate refuses goes to the app, which answers why.
          if (refusal(req) !== undefined) return app(req, res);
          beforeRoutes(req, res, (body) => {
            if (body) readAhead.set(req, body);
            app(req, res);
          });
        }
      : app,
    options.host,
    options.port,
  );
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
    releaseSessions() {
      const released = tables.flatMap((sessions) => sessions.release());
      return {
        ids: released.map(([id]) => id),
        end: async () => {
          await Promise.allSettled(released.map(([, transport]) => transport.close()));
        },
      };
    },
    stopAccepting() {
      return new Promise<void>((resolve) => {
        if (httpServer.listening) httpServer.close(() => resolve());
        else resolve();
      });
    },
    async close() {
      clearInterval(sweeper);
      const transports = [
        ...tables.flatMap((sessions) => sessions.transports()),
        ...[...legacy.values()].map((session) => session.transport),
      ];
      await Promise.allSettled([
        ...transports.map((transport) => transport.close()),
        ...modernHandlers.map((handler) => handler.close()),
      ]);
      await new Promise<void>((resolve) => {
        if (httpServer.listening) httpServer.close(() => resolve());
        else resolve();
        httpServer.closeAllConnections();
      });
    },
  };
}
