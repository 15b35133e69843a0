import { SessionRefusal } from '@toolmesh/core/http';
import { parseCookie } from 'cookie';
import type { NextFunction, Request, Response } from 'express';
import { type Authenticator, AuthRefusal } from '../auth/authenticator.js';
import type { Approver } from '../session-server/approvals-api.js';
import { type BrowserSessions, sameSecret, type Viewer } from './browser-sessions.js';

export const CSRF_HEADER = 'x-csrf-token';
/** Who decides from the dashboard when authentication is off. */
export const OPEN_DASHBOARD_APPROVER = 'dashboard';

/** The origin a page of this server has: what a same-origin request's Origin header says. */
export function ownOrigin(req: Request): string {
  return `${req.protocol}://${req.headers.host ?? ''}`;
}

/**
 * Whether a request comes from the dashboard's own pages. SameSite=Strict alone does not settle
 * it: a page on another port of localhost is the same site, so the Origin must be this server's
 * exactly, and a browser that says the request is cross-site is believed.
 */
export function fromOwnPages(req: Request): boolean {
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return false;
  const origin = req.headers.origin;
  return origin === undefined || origin === ownOrigin(req);
}

/**
 * The session cookie's name, one per port of the address the browser used: browsers keep cookies
 * per host whatever the port, so two toolmesh instances on one machine would otherwise sign each
 * other out. Behind a load balancer every replica sees the balancer's port, so they agree.
 */
export function sessionCookieName(req: Request): string {
  const port = /:(\d{1,5})$/.exec(req.headers.host ?? '')?.[1] ?? (req.protocol === 'https' ? '443' : '80');
  return `toolmesh_ui_${port}`;
}

export function sessionIdOf(req: Request): string | undefined {
  const header = req.headers.cookie;
  return header ? parseCookie(header)[sessionCookieName(req)] : undefined;
}

export interface ViewerResolver {
  /** The signed-in viewer, undefined without a (valid) session; throws an AuthRefusal for a revoked or throttled token. */
  viewerOf(req: Request): Viewer | undefined;
  /** The session's CSRF secret. */
  csrfOf(req: Request): string | undefined;
}

/** Signed-in browsers as viewers: their token is checked again on every request, so a revoked one stops at once. */
export function viewerResolver(
  sessions: BrowserSessions,
  authenticator: Authenticator | undefined,
): ViewerResolver {
  return {
    viewerOf(req) {
      const id = sessionIdOf(req);
      const session = sessions.get(id);
      if (!session) return undefined;
      if (!authenticator)
        return { identity: 'anonymous', decidesAs: OPEN_DASHBOARD_APPROVER, approver: true };
      try {
        const principal = authenticator.authenticate(`Bearer ${session.token}`);
        return {
          identity: principal.identity,
          decidesAs: principal.identity,
          approver: principal.approver,
          ...(principal.workspaces && { workspaces: principal.workspaces }),
        };
      } catch (error) {
        if (error instanceof AuthRefusal && error.status === 401) {
          sessions.close(id);
          return undefined;
        }
        throw error;
      }
    },
    csrfOf: (req) => sessions.get(sessionIdOf(req))?.csrf,
  };
}

const viewers = new WeakMap<Request, Viewer>();

/** The viewer as the approvals API knows an approver: a name, and the workspaces they may decide for. */
export function approverOf(viewer: Viewer): Approver {
  return { name: viewer.decidesAs, ...(viewer.workspaces && { workspaces: viewer.workspaces }) };
}

/** The viewer `requireViewer` found for this request. */
export function viewerOfRequest(req: Request): Viewer {
  const viewer = viewers.get(req);
  if (!viewer) throw new SessionRefusal(401, 'Not signed in to the dashboard: sign in at /ui/login.');
  return viewer;
}

/**
 * API requests: from the dashboard's own pages, by a signed-in browser; a change (any method but
 * GET) also carries the session's CSRF secret in the X-CSRF-Token header and its Origin.
 */
export function requireViewer(resolver: ViewerResolver) {
  return (req: Request, res: Response, next: NextFunction) => {
    if (!fromOwnPages(req)) {
      res
        .status(403)
        .json({ error: 'The dashboard answers its own pages only: this request came from another origin.' });
      return;
    }
    let viewer: Viewer | undefined;
    try {
      viewer = resolver.viewerOf(req);
    } catch (error) {
      if (!(error instanceof AuthRefusal)) throw error;
      res.set(error.headers).status(error.status).json({ error: error.message });
      return;
    }
    if (!viewer) {
      res.status(401).json({ error: 'Not signed in, or the session ended: sign in again at /ui/login.' });
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      const csrf = resolver.csrfOf(req);
      const given = req.headers[CSRF_HEADER];
      if (
        req.headers.origin !== ownOrigin(req) ||
        !csrf ||
        !sameSecret(typeof given === 'string' ? given : undefined, csrf)
      ) {
        res.status(403).json({
          error:
            'A change needs the X-CSRF-Token header of this session and the Origin of this server: reload the dashboard and try again.',
        });
        return;
      }
    }
    viewers.set(req, viewer);
    next();
  };
}
