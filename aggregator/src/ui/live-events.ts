import type { Request, Response } from 'express';
import type { Aggregator } from '../aggregator.js';
import { viewerOfRequest } from './browser-guard.js';
import type { PendingWatch } from './pending-watch.js';
import type { ServerHistory } from './server-history.js';

/** Often enough that an approver watching the page counts as connected (ApprovalPort's 15 s), and that proxies keep the stream. */
const HEARTBEAT_MS = 5000;

/**
 * `GET /ui/api/events`: server-sent events telling the page what to read again: `approvals` when
 * what waits for a person changes, `servers` when a server's state does. While an approver's page
 * is open, they count as a connected approver, so calls needing approval wait for them.
 */
export function liveEvents(
  aggregator: Aggregator,
  watch: PendingWatch,
  history: ServerHistory,
  /** Whether the browser is still signed in: a revoked token or a signed-out session ends the stream. */
  signedIn: (req: Request) => boolean,
) {
  return (req: Request, res: Response) => {
    const viewer = viewerOfRequest(req);
    res.writeHead(200, {
      'Content-Type': 'text/event-stream',
      'Cache-Control': 'no-store',
      Connection: 'keep-alive',
    });
    res.flushHeaders();
    const send = (event: string) => res.write(`event: ${event}\ndata: {}\n\n`);
    const present = () => {
      if (viewer.approver)
        void aggregator.state.touchApprover(viewer.decidesAs, Date.now()).catch(() => undefined);
    };
    present();
    const unsubscribe = watch.subscribe(() => send('approvals'));
    const serversChanged = () => send('servers');
    history.on('changed', serversChanged);
    const heartbeat = setInterval(() => {
      if (!signedIn(req)) {
        res.end();
        return;
      }
      present();
      res.write(': heartbeat\n\n');
    }, HEARTBEAT_MS);
    send('ready');
    res.on('close', () => {
      clearInterval(heartbeat);
      unsubscribe();
      history.off('changed', serversChanged);
    });
  };
}
