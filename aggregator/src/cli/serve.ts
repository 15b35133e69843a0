import { isInitializeRequest } from '@modelcontextprotocol/server';
import { type Logger, StdioLineTransport } from '@toolmesh/core';
import type { Aggregator } from '../aggregator.js';
import { AuthRefusal, type Principal } from '../auth/authenticator.js';
import type { HttpAccess } from '../auth/http-access.js';
import { sessionAccess } from '../auth/session-access.js';
import { refuse } from '../auth/shared-rate-limit.js';
import type { TokenRegistry } from '../auth/token-store.js';
import type { Fleet } from '../fleet/fleet.js';
import type { FleetMetrics } from '../fleet/fleet-metrics.js';
import type { Exposure } from '../session-server/session.js';
import { StateUnavailableError } from '../state/state-unavailable.js';
import { toolmeshInvocation } from './invocation.js';
import { stopPromptly } from './stop-promptly.js';

/**
 * Whether the front asks for a server to open a 2025 session (an initialize, or the legacy
 * `/sse` stream) rather than to answer one 2026-07-28 request: it asks for nothing else.
 */
function opensLegacySession(request: { method: string; body?: unknown }): boolean {
  if (request.method !== 'POST') return true;
  const messages: unknown[] = Array.isArray(request.body) ? request.body : [request.body];
  // The method first: the schema costs a failed pass on every other request.
  return messages.some(
    (message) =>
      (message as { method?: unknown } | null)?.method === 'initialize' && isInitializeRequest(message),
  );
}

/** The identity of HTTP sessions when authentication is off. */
const ANONYMOUS = 'anonymous';

/** Which servers are up once the start-up wait is over, and which failed and why. */
function serverReport(aggregator: Aggregator): { ready: string; problems: string[] } {
  const upstreams = aggregator.upstreams.list();
  const ready = upstreams
    .filter((upstream) => upstream.state === 'ready')
    .map((upstream) => `${upstream.name} (${upstream.catalog.tools.length} tools)`);
  const problems = upstreams.flatMap((upstream) => {
    if (upstream.state === 'starting') return [`still starting: ${upstream.name}; it joins when ready`];
    if (upstream.state !== 'restarting') return [];
    return [
      `FAILED ${upstream.name}: ${upstream.lastError ?? 'did not start'}; retrying in ${upstream.secondsUntilRetry()} s (toolmesh doctor says what to check)`,
    ];
  });
  return { ready: ready.length > 0 ? `servers ready: ${ready.join(', ')}` : 'no server is ready', problems };
}

/** Where `toolmesh` is not a command here (a clone not linked), how to run the commands the banner names. */
function notOnPath(): string[] {
  const invocation = toolmeshInvocation();
  if (invocation === 'toolmesh') return [];
  return [
    `  toolmesh is not on PATH here: run the toolmesh commands named here as \`${invocation} …\`, or put it on PATH (in a clone: pnpm link --global in aggregator/)`,
  ];
}

function clientSnippets(url: string, modes: string[], access: HttpAccess): string {
  const token = access.localToken;
  const headers = token ? { Authorization: `Bearer ${token}` } : undefined;
  const tokenNote = !access.authenticator
    ? ['  authentication is off (auth.required false): any program on this machine can call it']
    : token
      ? [
          '  the token below is yours: it may use every mode and workspace; approvals are decided with `toolmesh approvals --watch` or an --approver token',
        ]
      : ['  send a token made by `toolmesh token create` as "Authorization: Bearer <token>"'];
  return [
    '',
    `toolmesh is serving MCP at ${url}`,
    `  only the discovery tools: ${url}/discovery    health: ${url.replace(/\/mcp$/, '/health')}`,
    `  in a mode: ${modes.map((mode) => `${url}/${mode}`).join('  ')}`,
    ...tokenNote,
    ...notOnPath(),
    '',
    `Claude Code:  claude mcp add --transport http toolmesh ${url}${headers ? ` --header "Authorization: Bearer ${token}"` : ''}`,
    'Cursor (~/.cursor/mcp.json) and other clients that read mcpServers:',
    JSON.stringify({ mcpServers: { toolmesh: { url, ...(headers && { headers }) } } }, null, 2),
    'VS Code (.vscode/mcp.json):',
    JSON.stringify({ servers: { toolmesh: { type: 'http', url, ...(headers && { headers }) } } }, null, 2),
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
  /** HTTP only: who may call, settled by prepareHttpAccess before the servers started. */
  access?: HttpAccess;
  /** HTTP only: the Redis of a fleet of replicas (state.redis or --redis); without it, one process. */
  redis?: string;
  /** `state.redisPrefix`, when the config sets it. */
  redisKeyPrefix?: string;
  log: Logger;
}

/** Serves the aggregator until a signal or (over stdio) the client closing stdin; then stops every child. */
export async function serveAggregator(aggregator: Aggregator, options: ServeOptions): Promise<void> {
  let close: () => Promise<void>;
  let fleet: Fleet | undefined;
  let stdio: StdioLineTransport | undefined;
  if (options.transport === 'stdio') {
    // Loaded only for stdio, as the HTTP front is only for HTTP.
    const { serveStdio } = await import('@modelcontextprotocol/server/stdio');
    // The client's first message picks the era for the connection: an initialize opens a 2025
    // session, a 2026-07-28 request is served with what it carries. The line transport keeps
    // toolmesh's answers to unreadable and over-long lines.
    stdio = new StdioLineTransport();
    const connection = serveStdio(
      () =>
        aggregator.createSessionServer({
          ...(options.mode && { mode: options.mode }),
          ...(options.workspace && { workspace: options.workspace }),
          era: 'either',
        }),
      {
        transport: stdio,
        onerror: (error) => options.log.debug(`stdio: ${error.message}`),
      },
    );
    close = () => connection.close();
    void aggregator.started.then(() => {
      const { ready, problems } = serverReport(aggregator);
      options.log.info(ready);
      for (const problem of problems) options.log.warning(problem);
    });
  } else {
    // Loaded only to serve HTTP: express and the dashboard are most of what start-up would load.
    const [{ ListenError, SessionRefusal, callerOf, startHttpFront }, { approvalsApi }, { createDashboard }] =
      await Promise.all([
        import('@toolmesh/core/http'),
        import('../session-server/approvals-api.js'),
        import('../ui/dashboard.js'),
      ]);
    const access = options.access ?? {};
    const { authenticator } = access;
    const principalOf = (request: Parameters<typeof callerOf>[0]) =>
      callerOf(request) as Principal | undefined;
    const mayReadDetails = (request: Parameters<typeof callerOf>[0]) => {
      if (!authenticator) return true;
      try {
        authenticator.authenticate(request.headers.authorization);
        return true;
      } catch {
        return false;
      }
    };
    const answered = (error: unknown) =>
      error instanceof AuthRefusal ? new SessionRefusal(error.status, error.message, error.headers) : error;
    // Mode and workspace are the operator's choice, made by the URL a client is given:
    // /mcp/plan, /mcp/plan/discovery, /mcp/review?workspace=web.
    const session = (exposure?: Exposure) => (request: Parameters<typeof callerOf>[0]) => {
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
      const principal = principalOf(request);
      let granted: { mode: string; workspace?: string };
      try {
        const asked = { mode: mode ?? aggregator.config.defaultMode, ...(workspace && { workspace }) };
        granted = principal ? sessionAccess(principal, asked) : asked;
      } catch (error) {
        throw answered(error);
      }
      return aggregator.createSessionServer({
        ...(exposure && { exposure }),
        ...granted,
        transport: 'http',
        identity: principal?.identity ?? ANONYMOUS,
        ...(principal && { principal: principal.key }),
        ...(principal?.modes && { allowedModes: principal.modes }),
        era: opensLegacySession(request) ? 'legacy' : 'modern',
      });
    };
    const { FleetMetrics } = await import('../fleet/fleet-metrics.js');
    const metrics = new FleetMetrics(aggregator);
    fleet = options.redis
      ? await joinFleet(aggregator, { ...options, redis: options.redis }, metrics)
      : undefined;
    const dashboard = createDashboard({ aggregator, authenticator, localToken: access.localToken, fleet });
    const approvals = approvalsApi(aggregator.state, {
      approver: (request) => {
        const principal = principalOf(request);
        if (!principal) return { name: `http:${request.ip ?? 'unknown'}` };
        if (!principal.approver)
          throw new SessionRefusal(
            403,
            `Token ${principal.identity} may not decide approvals: create one that may with toolmesh token create --name NAME --approver, or decide with toolmesh approvals on this machine.`,
          );
        return {
          name: principal.identity,
          ...(principal.workspaces && { workspaces: principal.workspaces }),
        };
      },
    });
    const { sharedRateLimit } = access;
    const front = await startHttpFront({
      ...(fleet && { sharedSessions: fleet }),
      createServer: session(),
      // A 2026-07-28 request is answered with no session, from what it carries, by any process.
      modernEra: true,
      onEventStream: (server) => aggregator.sessionReachable(server),
      endpoints: {
        '/mcp/all': session('all'),
        '/mcp/discovery': session('discovery'),
        '/mcp/:mode': session(),
        '/mcp/:mode/all': session('all'),
        '/mcp/:mode/discovery': session('discovery'),
      },
      ...(authenticator && {
        authenticate: (request: Parameters<typeof callerOf>[0]) => {
          try {
            return authenticator.principalOf(request);
          } catch (error) {
            throw answered(error);
          }
        },
      }),
      // A request for a session another replica owns goes there before this replica routes,
      // authenticates or parses it (the owner does all that): see early-forward.ts.
      ...(fleet && {
        beforeRoutes: fleet.earlyForward({
          maxBodyBytes: aggregator.config.http.maxBodyBytes,
          ...(sharedRateLimit && { rateLimit: sharedRateLimit }),
          ...(authenticator && { authenticated: (req) => authenticator.accepts(req) }),
        }),
      }),
      publicRoutes: (app) => {
        dashboard.routes(app);
        // Anyone may ask whether toolmesh is up and which replica answered; which servers it
        // runs and how they fail (paths, URLs) is for callers with a token.
        app.get('/health', async (req, res) => {
          const upstreams = aggregator.upstreams.list();
          const seen = fleet && (await fleet.health());
          // What every request is judged by, not a view of its own: a copy of the tokens too old
          // to trust refuses requests (503) though the lease holds.
          const tokens = authenticator && (await tokenCopy(authenticator.store));
          const healthy =
            upstreams.every((upstream) => upstream.state === 'ready') &&
            (!seen || (seen.lease === 'held' && !seen.draining)) &&
            tokens?.stale === undefined;
          const status = seen?.draining ? 'draining' : healthy ? 'ok' : 'degraded';
          res.status(healthy ? 200 : 503);
          const tokensSeen = tokens?.copy && { tokens: tokens.stale === undefined ? 'fresh' : 'stale' };
          if (!mayReadDetails(req)) {
            // Which replica answered, whether it holds its lease and can check tokens are for balancers and probes.
            res.json({ status, ...(seen && { replica: seen.replica, lease: seen.lease }), ...tokensSeen });
            return;
          }
          const servers = upstreams.map((upstream) => ({
            name: upstream.name,
            state: upstream.state,
            tools: upstream.catalog.tools.length,
            ...(upstream.protocolVersion && { protocolVersion: upstream.protocolVersion }),
            ...(upstream.lastError && { lastError: upstream.lastError }),
          }));
          res.json({
            status,
            ...seen,
            ...tokensSeen,
            ...(await stateHealth(aggregator)),
            servers,
            sessions: aggregator.sessionCount,
          });
        });
      },
      // Every request but a public route's passes the fleet's rate limit before the front
      // authenticates it.
      ...(sharedRateLimit && {
        admit: async (req, res, next) => {
          if (!fleet?.passedOnByReplica(req)) {
            const refusal = await sharedRateLimit(req);
            return refusal ? refuse(res, refusal) : next();
          }
          // Another replica took it from the fleet's budget: once only. Its token is still
          // checked here, on a copy read again if this process stood still (as the limit does).
          await authenticator?.store.freshen?.();
          try {
            authenticator?.judge(req);
          } catch {
            // Refused by the front's own check, which answers it.
          }
          next();
        },
      }),
      routes: (app) => {
        approvals(app);
        // Behind authentication: tool and server names are for callers with a token.
        app.get('/metrics', async (_req, res) => {
          res.type(metrics.registry.contentType).send(await metrics.registry.metrics());
        });
      },
      host: options.host,
      port: options.port,
      log: options.log,
      maxBodyBytes: aggregator.config.http.maxBodyBytes,
      allowedOrigins: aggregator.config.http.allowedOrigins,
    }).catch(async (error: unknown) => {
      if (!(error instanceof ListenError)) throw error;
      // The servers already started: end them before saying why toolmesh cannot serve.
      await aggregator.stop();
      await aggregator.state.close().catch(() => undefined);
      process.stderr.write(`toolmesh: ${error.message}\n`);
      process.exit(1);
    });
    // The banner waits for the start-up wait, so that it can say which servers failed.
    await aggregator.started;
    // A replica holds its lease before it says it listens: until then it serves no session.
    await fleet?.start(front, front.url);
    const { ready, problems } = serverReport(aggregator);
    process.stderr.write(
      `${clientSnippets(front.url, aggregator.policy.table.names(), access)}${[ready, ...problems].join('\n')}\n${dashboard.banner(front.url)}\n\n`,
    );
    options.log.info(`listening on ${front.url}`);
    close = () => front.close();
  }

  let stopping = false;
  const stop = async (drainMs?: number) => {
    if (stopping) return;
    stopping = true;
    if (fleet) {
      await fleet
        .drain(drainMs)
        .catch((error: Error) => options.log.warning(`fleet: drain failed: ${error.message}`));
      await fleet.close();
    }
    await close().catch(() => undefined);
    await stopPromptly(aggregator);
    process.exit(0);
  };
  // SIGTERM (a rolling deploy) lets calls in flight finish; SIGINT (a person at the terminal) does not wait.
  process.once('SIGINT', () => void stop(0));
  process.once('SIGTERM', () => void stop());
  if (stdio) {
    const transport = stdio;
    // The client sent its last request and closed stdin (as a pipe does): what it asked is
    // answered first, for as long as a call may take.
    const stopOnceAnswered = async () => {
      let bound: NodeJS.Timeout | undefined;
      await Promise.race([
        transport.answered(),
        new Promise((resolve) => {
          bound = setTimeout(resolve, aggregator.config.callTimeoutMs);
        }),
      ]);
      clearTimeout(bound);
      await stop();
    };
    process.stdin.once('end', () => void stopOnceAnswered());
    process.stdin.once('close', () => void stopOnceAnswered());
  }
}

/** Joins the fleet on `redisUrl`; toolmesh does not start when Redis does not answer, rather than serve alone. */
async function joinFleet(
  aggregator: Aggregator,
  { redis: redisUrl, redisKeyPrefix: configured, log }: ServeOptions & { redis: string },
  metrics: FleetMetrics,
) {
  const [{ Fleet }, { redisKeyPrefix }] = await Promise.all([
    import('../fleet/fleet.js'),
    import('../state/shared-names.js'),
  ]);
  try {
    return await Fleet.connect({
      redisUrl,
      keyPrefix: redisKeyPrefix(configured),
      settings: aggregator.config.fleet,
      aggregator,
      metrics,
      log,
      sessionIdleMs: 30 * 60_000,
      rebuild: (mode, record) =>
        aggregator.createSessionServer({
          ...(record.exposure && { exposure: record.exposure }),
          mode,
          ...(record.workspace !== undefined && { workspace: record.workspace }),
          transport: 'http',
          identity: record.identity,
          ...(record.allowedModes && { allowedModes: record.allowedModes }),
        }),
    });
  } catch (error) {
    await aggregator.stop();
    await aggregator.state.close().catch(() => undefined);
    process.stderr.write(`toolmesh: ${(error as Error).message}\n`);
    process.exit(1);
  }
}

/**
 * Whether requests can be authenticated now, by the check each request makes: a store that
 * answers from a copy (Redis) refuses every request while its copy is too old to trust.
 */
async function tokenCopy(store: TokenRegistry): Promise<{ copy: boolean; stale?: string }> {
  await store.freshen?.();
  try {
    store.list();
    return { copy: store.freshen !== undefined };
  } catch (error) {
    if (!(error instanceof StateUnavailableError)) throw error;
    return { copy: true, stale: error.message };
  }
}

/** How the shared state's stores answer (Redis, PostgreSQL); nothing for SQLite. */
async function stateHealth(aggregator: Aggregator): Promise<Record<string, unknown>> {
  const health = await aggregator.state.health().catch((error: Error) => ({ error: error.message }));
  return Object.keys(health).length > 0 ? { state: health } : {};
}
