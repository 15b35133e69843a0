import { ErrorCode, McpError } from '../upstream/legacy-error.js';
import type { RelayedMethod } from '../upstream/upstream-client.js';
import type { AskedCapability, ClientSession } from './session.js';

const RELAY_CAPABILITY: Record<RelayedMethod, AskedCapability> = {
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

/** A 2025 session's capabilities are from its initialize; a 2026-07-28 request's from its own `_meta`. */
const supports = (session: ClientSession, method: RelayedMethod) =>
  session.roundTrip
    ? session.roundTrip.declares.has(RELAY_CAPABILITY[method])
    : Boolean(session.server.getClientCapabilities()?.[RELAY_CAPABILITY[method]]);

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
    // A 2026-07-28 client is asked by a round trip of its call, for what its request declares.
    if (caller.roundTrip && !supports(caller, method))
      throw refused(
        `The client calling server ${upstream} through toolmesh speaks MCP 2026-07-28 and its request does not declare ${capability} (io.modelcontextprotocol/clientCapabilities in _meta), so the server's ${method} request cannot be put to it.`,
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
