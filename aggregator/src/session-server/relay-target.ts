import { ErrorCode, McpError } from '../upstream/legacy-error.js';
import type { RelayedMethod } from '../upstream/upstream-client.js';
import type { ActiveCall, AskedCapability, ClientSession } from './session.js';

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

/** A call to a downstream server, as the session server made it: whose, and through what its client is asked. */
export interface CallerOfCall {
  session: ClientSession;
  call: ActiveCall;
}

/**
 * The session whose client answers a request a downstream server sends to "its client"; throws
 * when none may. The request belongs to a call to that server: `caller` made it, when the wire
 * said which call that is (a 2026-07-28 server's `input_required` result, a 2025 server's request
 * on a call's Streamable HTTP response stream). Else (a 2025 server over stdio, where nothing
 * ties a request to a call, or over the event stream outside any call's) of the sessions calling
 * it the most recently active is taken, and only when they all act for one identity: a question
 * must never reach another person's client. Outside any call only roots/list is relayed, and
 * only while every connected client is the same identity.
 */
export function relayTarget(
  sessions: readonly ClientSession[],
  upstream: string,
  method: RelayedMethod,
  caller?: ClientSession,
): ClientSession {
  const capability = RELAY_CAPABILITY[method];
  const calling = caller ? [caller] : sessions.filter((session) => session.isCalling(upstream));
  const latest = mostRecentlyActive(calling);
  if (latest) {
    const identities = identitiesOf(calling);
    if (identities.length > 1) {
      throw refused(
        `toolmesh cannot tell whose call to server ${upstream} this ${method} request belongs to: ${identities.join(', ')} are calling it at once, so it is not relayed.`,
      );
    }
    // A 2026-07-28 client is asked by a round trip of its call, for what its request declares.
    if (latest.roundTrip && !supports(latest, method))
      throw refused(
        `The client calling server ${upstream} through toolmesh speaks MCP 2026-07-28 and its request does not declare ${capability} (io.modelcontextprotocol/clientCapabilities in _meta), so the server's ${method} request cannot be put to it.`,
      );
    if (!supports(latest, method))
      throw refused(`The client calling server ${upstream} through toolmesh does not support ${capability}.`);
    return latest;
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
