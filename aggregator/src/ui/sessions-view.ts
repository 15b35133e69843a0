// What GET /sessions answers for a 2025 session, in one place for both sides: the server builds it
// (session-rows.ts) and the dashboard page reads it (ui/pages/sessions.tsx). Types only.

/** One 2025 session as the Sessions page shows it. */
export interface SessionRow {
  /** Toolmesh's id for a session served here (audit records name it); for another replica's, a digest of its Mcp-Session-Id. */
  id: string;
  identity: string;
  client?: string;
  transport: string;
  /** The revision agreed on at initialize (here), or the one the client asked for (elsewhere). */
  revision: string;
  mode: string;
  workspace?: string;
  exposure: string;
  /** Known where the session is served; another replica's sessions show none. */
  lastActive?: number;
  /** In a fleet: the replica that serves it ('' while none does). */
  replica?: string;
  /** In a fleet: false when its replica is gone (the next request takes it over). */
  replicaAlive?: boolean;
}
