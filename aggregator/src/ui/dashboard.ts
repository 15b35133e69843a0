import { SessionRefusal } from '@toolmesh/core/http';
import express, { type NextFunction, type Request, type Response } from 'express';
import type { Aggregator } from '../aggregator.js';
import { type Authenticator, AuthRefusal } from '../auth/authenticator.js';
import type { Fleet } from '../fleet/fleet.js';
import { approvalsApi } from '../session-server/approvals-api.js';
import { approverOf, requireViewer, viewerOfRequest, viewerResolver } from './browser-guard.js';
import { BrowserSessions } from './browser-sessions.js';
import { dashboardApi } from './dashboard-api.js';
import { FleetServers } from './fleet-servers.js';
import { liveEvents } from './live-events.js';
import { PendingWatch } from './pending-watch.js';
import { securityHeaders } from './security-headers.js';
import { ServerHistory } from './server-history.js';
import { serverRows } from './server-rows.js';
import { fleetSessionRows } from './session-rows.js';
import { signInRoutes } from './sign-in.js';
import { StaticAssets } from './static-assets.js';

/** The pages of the single-page app; each is index.html, which picks the page from the path. */
export const DASHBOARD_PAGES = ['servers', 'tools', 'approvals', 'audit', 'sessions'] as const;

export interface DashboardOptions {
  aggregator: Aggregator;
  /** Undefined when authentication is off (loopback only): a sign-in link then is all it takes. */
  authenticator: Authenticator | undefined;
  /** The token of the person at this machine: the sign-in link printed at start signs in with it. */
  localToken: string | undefined;
  /** The fleet this process is a replica of, if any: the Servers and Sessions pages then show every replica's. */
  fleet?: Fleet | undefined;
}

export interface Dashboard {
  /** Mounts `/ui` on the HTTP front, before its bearer-token check: the dashboard signs browsers in itself. */
  routes(app: express.Express): void;
  /** The line toolmesh prints at start: where the dashboard is, with a one-time sign-in link when it can make one. */
  banner(mcpUrl: string): string;
}

/**
 * The web dashboard, served at `/ui` on the HTTP front: a browser signs in with a token (or the
 * one-time link printed at start) and holds an HttpOnly, SameSite=Strict session cookie; every
 * read goes through the same aggregator and state as the CLI, every change is a POST with the
 * session's CSRF secret and this server's Origin, and decisions go through the approvals API.
 */
export function createDashboard({
  aggregator,
  authenticator,
  localToken,
  fleet,
}: DashboardOptions): Dashboard {
  const sessions = new BrowserSessions();
  const resolver = viewerResolver(sessions, authenticator);
  const assets = new StaticAssets();
  const history = new ServerHistory(aggregator.upstreams);
  const watch = new PendingWatch(aggregator.state);
  const fleetServers =
    fleet && new FleetServers(fleet, fleet.keyPrefix, () => serverRows(aggregator, history), aggregator.log);
  if (fleetServers) {
    fleetServers.start();
    history.on('changed', () => fleetServers.publish());
  }

  const signedIn = (req: Request) => {
    try {
      return resolver.viewerOf(req) !== undefined;
    } catch (error) {
      // A token over its rate is still signed in: its page loads, its live stream goes on, and
      // the reads say to wait. Sending it to the sign-in form (or ending the stream, which a
      // browser then gives up on) would help nobody.
      return error instanceof AuthRefusal && error.status === 429;
    }
  };

  const api = express.Router();
  api.use(requireViewer(resolver), express.json({ limit: '16kb' }), (_req, res, next) => {
    res.set('Cache-Control', 'no-store');
    next();
  });
  api.get('/me', (req, res) => {
    res.json({ ...viewerOfRequest(req), csrf: resolver.csrfOf(req) });
  });
  dashboardApi(
    api,
    aggregator,
    history,
    fleet &&
      fleetServers && {
        replica: fleet.lease.id,
        servers: fleetServers,
        sessions: () => fleetSessionRows(aggregator, fleet),
      },
  );
  api.get('/events', liveEvents(aggregator, watch, history, signedIn));
  approvalsApi(aggregator.state, {
    approver: (request) => {
      const viewer = viewerOfRequest(request);
      if (!viewer.approver)
        throw new SessionRefusal(
          403,
          `Token ${viewer.identity} may see approvals but not decide them: sign in with a token made by toolmesh token create --approver.`,
        );
      return approverOf(viewer);
    },
  })(api as unknown as express.Express);
  api.use((_req, res) => {
    res.status(404).json({ error: 'No such dashboard API.' });
  });

  const ui = express.Router({ strict: true });
  ui.use(securityHeaders);
  signInRoutes(ui, { sessions, authenticator });
  ui.get('/assets/:name', (req, res, next) => {
    if (!assets.send(req.params.name, req, res)) next();
  });
  ui.use('/api', api);
  const page = (req: Request, res: Response) => {
    if (!assets.built) {
      res
        .status(503)
        .type('text')
        .send('The dashboard was not built into this install: run pnpm --filter @toolmesh/aggregator build.');
      return;
    }
    if (!signedIn(req)) {
      res.redirect(303, '/ui/login');
      return;
    }
    assets.send('index.html', req, res);
  };
  ui.get('/', page);
  for (const name of DASHBOARD_PAGES) ui.get(`/${name}`, page);
  ui.use((_req, res) => {
    res.status(404).type('text').send('No such dashboard page.');
  });
  ui.use((error: Error & { status?: number }, _req: Request, res: Response, _next: NextFunction) => {
    // A refusal, or the body parser's verdict on a malformed body (400, 413), is the request's fault.
    const status =
      error instanceof SessionRefusal
        ? error.status
        : error.status !== undefined && error.status >= 400 && error.status < 500
          ? error.status
          : 500;
    if (error instanceof SessionRefusal) res.set(error.headers);
    else if (status === 500) aggregator.log.error('dashboard request failed', { error: error.message });
    if (!res.headersSent) res.status(status).json({ error: error.message });
  });

  return {
    routes(app) {
      app.use('/ui', ui);
    },
    banner(mcpUrl) {
      const base = mcpUrl.replace(/\/mcp$/, '');
      if (!authenticator || localToken)
        return `  dashboard: ${base}/ui/login?code=${sessions.issueCode(localToken)}  (a sign-in link that works once; then sign in at ${base}/ui/login with a token)`;
      return `  dashboard: ${base}/ui/  (sign in with a token from toolmesh token create)`;
    },
  };
}
