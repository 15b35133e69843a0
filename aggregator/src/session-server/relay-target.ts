import { ErrorCode, McpError } from '../upstream/legacy-error.js';
import type { RelayedMethod } from '../upstream/upstream.js';
import type { ClientSession } from './session.js';

const RELAY_CAPABILITY: Record<RelayedMethod, 'sampling' | 'elicitation' | 'roots'> = {
  'sampling/createMessage': 'sampling',
  'elicitation/create': 'elicitation',
  'roots/list': 'roots',
};

// MethodNotFound is what a client that lacks the capability answers, so downstream servers
// already handle it: a roots-following server keeps its configured roots, a tool reports it.
const refused = (message: string) => new McpError(ErrorCode.MethodNotFound, message);

const mostRecentlyActive = (sessions: readonly ClientSession[]) =>
  sessions.reduce<ClientSession | undefined>(
    (latest, session) => (latest && latest.lastActive >= session.lastActive ? latest : session),
    undefined,
  );

const identitiesOf = (sessions: readonly ClientSession[]) => [
  ...new Set(sessions.map((session) => session.identity)),
];

const supports = (session: ClientSession, method: RelayedMethod) =>
  Boolean(session.server.getClientCapabilities()?.[RELAY_CAPABILITY[method]]);

/**
 * The session whose client answers a request a downstream server sends to "its client"; throws
 * when none may. The request belongs to a call to that server, but over stdio it does not say
 * which, so of the sessions calling it the most recently active is taken, and only when they
 * all act for one identity: a question must never reach another person's client. Outside any
 * call only roots/list is relayed, and only while every connected client is the same identity.
 */
export function relayTarget(
  sessions: readonly ClientSession[],
  upstream: string,
  method: RelayedMethod,
): ClientSession {
  const capability = RELAY_CAPABILITY[method];
  const calling = sessions.filter((session) => session.isCalling(upstream));
  const caller = mostRecentlyActive(calling);
  if (caller) {
    const identities = identitiesOf(calling);
    if (identities.length > 1) {
      throw refused(
        `toolmesh cannot tell whose call to server ${upstream} this ${method} request belongs to: ${identities.join(', ')} are calling it at once, so it is not relayed.`,
      );
    }
    // A 2026-07-28 client cannot be sent a request; its call would have to end input_required
    // and resume in the same process on the retry, which toolmesh does not do yet.
    if (caller.modern)
      throw refused(
        `The client calling server ${upstream} through toolmesh speaks MCP 2026-07-28, and toolmesh does not yet pass a server's ${capability} request on to such a client as a round trip of the call. Call this tool from a 2025 client (one that initializes a session) if it needs ${capability}.`,
      );
    if (!supports(caller, method))
      throw refused(`The client calling server ${upstream} through toolmesh does not support ${capability}.`);
    return caller;
  }
  if (method !== 'roots/list') {
    throw refused(
      `toolmesh relays ${capability} requests only during a tool call, and no client is calling server ${upstream} now.`,
    );
  }
  const identities = identitiesOf(sessions);
  if (identities.length > 1) {
    throw refused(
      `toolmesh relays roots outside a tool call only while every connected client is the same identity; ${identities.join(', ')} are connected.`,
    );
  }
  const target = mostRecentlyActive(
    sessions.filter((session) => session.reachable && supports(session, method)),
  );
  if (!target) throw refused('No client connected to toolmesh supports roots.');
  return target;
}
