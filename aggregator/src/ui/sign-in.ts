import express, { type Request, type Response, type Router } from 'express';
import { type Authenticator, AuthRefusal } from '../auth/authenticator.js';
import { fromOwnPages, ownOrigin, sessionCookieName, sessionIdOf } from './browser-guard.js';
import { type BrowserSessions, SESSION_LIFETIME_MS } from './browser-sessions.js';

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);

/** The sign-in form: plain HTML, no script, so it works before anything else has loaded. */
export function signInPage(message?: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sign in · toolmesh</title>
<link rel="stylesheet" href="/ui/assets/app.css">
</head>
<body>
<main class="container sign-in">
<hgroup>
<h1>toolmesh</h1>
<p>Sign in to the dashboard</p>
</hgroup>
${message ? `<p role="alert" class="notice">${escapeHtml(message)}</p>` : ''}
<form method="post" action="/ui/login">
<label for="token">Token</label>
<input id="token" name="token" type="password" autocomplete="off" required aria-describedby="token-help">
<small id="token-help">A token from <code>toolmesh token create</code>; one made with <code>--approver</code> may also decide approvals. The sign-in link toolmesh prints when it starts signs in without one.</small>
<button type="submit">Sign in</button>
</form>
</main>
</body>
</html>
`;
}

export interface SignInOptions {
  sessions: BrowserSessions;
  authenticator: Authenticator | undefined;
}

function startSession(
  req: Request,
  res: Response,
  sessions: BrowserSessions,
  token: string | undefined,
): void {
  res.cookie(sessionCookieName(req), sessions.open(token), {
    httpOnly: true,
    sameSite: 'strict',
    path: '/ui',
    maxAge: SESSION_LIFETIME_MS,
  });
  // The URL the browser ends on carries no secret: the code is spent, the session is in the cookie.
  res.redirect(303, '/ui/');
}

function refuseSignIn(res: Response, status: number, message: string): void {
  res.status(status).type('html').send(signInPage(message));
}

/**
 * `GET /ui/login?code=`: the link toolmesh prints at start, good once; `GET /ui/login`: the form;
 * `POST /ui/login`: any token, from the form; `POST /ui/logout`.
 */
export function signInRoutes(router: Router, { sessions, authenticator }: SignInOptions): void {
  router.get('/login', (req: Request, res: Response) => {
    res.set('Cache-Control', 'no-store');
    const code = req.query.code;
    if (typeof code !== 'string') {
      res.type('html').send(signInPage());
      return;
    }
    const redeemed = sessions.redeemCode(code);
    if (!redeemed)
      return refuseSignIn(
        res,
        400,
        'This sign-in link was used already or has expired: sign in with a token, or restart toolmesh for a new link.',
      );
    startSession(req, res, sessions, redeemed.token);
  });

  router.post(
    '/login',
    express.urlencoded({ extended: false, limit: '4kb' }),
    (req: Request, res: Response) => {
      res.set('Cache-Control', 'no-store');
      // A form posted from another page would sign this browser in as someone else.
      if (!fromOwnPages(req) || req.headers.origin !== ownOrigin(req))
        return refuseSignIn(res, 403, 'Sign in from this page: the form was sent from another origin.');
      const token = typeof req.body?.token === 'string' ? req.body.token.trim() : '';
      if (!authenticator) return startSession(req, res, sessions, undefined);
      try {
        authenticator.authenticate(`Bearer ${token}`);
      } catch (error) {
        if (!(error instanceof AuthRefusal)) throw error;
        res.set(error.headers);
        return refuseSignIn(
          res,
          error.status,
          error.status === 401
            ? 'This token is not valid: it was revoked, mistyped, or toolmesh never issued it.'
            : error.message,
        );
      }
      startSession(req, res, sessions, token);
    },
  );

  router.post('/logout', (req: Request, res: Response) => {
    if (!fromOwnPages(req) || req.headers.origin !== ownOrigin(req)) {
      res.status(403).json({ error: 'Sign out from the dashboard itself.' });
      return;
    }
    sessions.close(sessionIdOf(req));
    res.clearCookie(sessionCookieName(req), { path: '/ui' });
    res.redirect(303, '/ui/login');
  });
}
