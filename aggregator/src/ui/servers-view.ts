// What GET /servers answers, in one place for both sides: the server builds it (server-rows.ts,
// fleet-servers.ts) and the dashboard page reads it (ui/pages/servers.tsx). Types only, so the
// page's bundle takes nothing else of the server.

/**
 * One downstream server as the Servers page shows it. Times are epoch milliseconds, so that a
 * row another replica published a moment ago still reads right when the page shows it.
 */
export interface ServerRow {
  name: string;
  /** starting, ready, restarting, stopped or dormant. */
  state: string;
  tools: number;
  /** The MCP revision toolmesh speaks with it, once connected. */
  protocolVersion?: string;
  restarts: number;
  readySince?: number;
  /** When a restarting server is tried next. */
  retryAt?: number;
  lastError?: string;
  /** What toolmesh doctor would say to do about it. */
  fix?: string;
  sandboxWarning?: string;
}

/** One replica's servers; outside a fleet, the one process's, with no replica id or URL. */
export interface ReplicaServers {
  replica?: string;
  /** Where the other replicas reach it. */
  url?: string;
  /** The replica that answered the page. */
  self: boolean;
  draining: boolean;
  servers: ServerRow[];
}

export interface ServersAnswer {
  now: number;
  fleet: boolean;
  replicas: ReplicaServers[];
  /** Why only this replica's servers are shown, when the others' cannot be read. */
  problem?: string;
}
