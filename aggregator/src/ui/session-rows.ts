import { createHash } from 'node:crypto';
import type { Aggregator } from '../aggregator.js';
import type { Fleet } from '../fleet/fleet.js';
import type { ListedSession } from '../fleet/session-directory.js';
import type { SessionRow } from './sessions-view.js';

/** The most sessions of other replicas one Sessions page lists. */
const LISTED_MAX = 500;

/** The sessions this process serves. */
export function localSessionRows(aggregator: Aggregator, replica?: string): SessionRow[] {
  return aggregator.liveSessions().map((session) => {
    const client = session.server.getClientVersion();
    return {
      id: session.id,
      identity: session.identity,
      ...(client && { client: `${client.name} ${client.version}` }),
      transport: session.transport,
      // What the client and toolmesh agreed on at initialize (deprecated in the SDK for
      // per-request reads, but a 2025 session's revision is fixed at initialize).
      revision: session.server.getNegotiatedProtocolVersion() ?? 'initializing',
      mode: session.mode,
      ...(session.workspace && { workspace: session.workspace }),
      exposure: session.exposure,
      lastActive: session.lastActive,
      ...(replica !== undefined && { replica, replicaAlive: true }),
    };
  });
}

/**
 * How the Sessions page names another replica's session: a digest of its Mcp-Session-Id, which is
 * for its client alone (anyone who held it could send requests under it, to be refused by token).
 */
export function listedSessionName(mcpSessionId: string): string {
  return createHash('sha256').update(mcpSessionId).digest('hex').slice(0, 32);
}

function listedRow({ id, owner, mode, record, ownerAlive }: ListedSession): SessionRow {
  const { clientInfo, protocolVersion } = record.initialize;
  return {
    id: listedSessionName(id),
    identity: record.identity,
    client: `${clientInfo.name} ${clientInfo.version}`,
    transport: 'http',
    revision: protocolVersion,
    mode,
    ...(record.workspace !== undefined && { workspace: record.workspace }),
    exposure: record.exposure ?? 'all',
    replica: owner,
    replicaAlive: ownerAlive,
  };
}

/**
 * The sessions of a whole fleet: this replica's as it serves them, then every other one in the
 * session directory in Redis with the replica that owns it. With Redis out of reach, this
 * replica's alone and what is wrong.
 */
export async function fleetSessionRows(
  aggregator: Aggregator,
  fleet: Pick<Fleet, 'directory' | 'lease' | 'servesHere'>,
): Promise<{ sessions: SessionRow[]; problem?: string }> {
  const local = localSessionRows(aggregator, fleet.lease.id);
  try {
    // Those served here are listed above, by toolmesh's id for them; the directory knows them by
    // their Mcp-Session-Id, which (as a digest) names the others.
    const listed = await fleet.directory.list(LISTED_MAX);
    return {
      sessions: [...local, ...listed.filter((entry) => !fleet.servesHere(entry.id)).map(listedRow)],
    };
  } catch (error) {
    return {
      sessions: local,
      problem: `The other replicas' sessions cannot be read from Redis now (${(error as Error).message}): only this replica's are shown.`,
    };
  }
}
