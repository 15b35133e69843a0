import { useEffect, useState } from 'preact/hooks';
import { getJson, type Me } from '../api';
import { ago, count } from '../format';

interface SessionRow {
  id: string;
  identity: string;
  client?: string;
  transport: string;
  /** The revision the client and toolmesh agreed on at initialize. */
  revision: string;
  mode: string;
  workspace?: string;
  exposure: string;
  /** Known on the replica that serves the session; another replica's show none. */
  lastActive?: number;
  /** In a fleet: the replica that serves it ('' while none does). */
  replica?: string;
  /** In a fleet: false when that replica is gone (the session's next request takes it over). */
  replicaAlive?: boolean;
}

/** A 2026-07-28 client: no session, so it is its token on one endpoint, while it is active. */
interface ModernClientRow {
  identity: string;
  client?: string;
  transport: string;
  revision: string;
  mode: string;
  workspace?: string;
  exposure: string;
  firstSeen: number;
  lastActive: number;
  requests: number;
}

interface SessionsAnswer {
  now: number;
  /** A fleet: the sessions of every replica, each with its replica; `replica` is the one answering. */
  fleet: boolean;
  replica?: string;
  problem?: string;
  sessions: SessionRow[];
  modernClients: ModernClientRow[];
}

const offered = (exposure: string) => (exposure === 'discovery' ? 'discovery only' : 'all');

function servedBy(session: SessionRow, answer: SessionsAnswer): string {
  if (session.replica === '') return 'none yet (handed over)';
  if (session.replica === answer.replica) return `${session.replica} (this one)`;
  if (session.replicaAlive === false) return `${session.replica} (gone: taken over at its next request)`;
  return session.replica ?? '—';
}

function LegacySessions({ answer }: { answer: SessionsAnswer }) {
  if (answer.sessions.length === 0) return <p>No session is open.</p>;
  return (
    <div class="overflow-auto">
      <table class="striped sessions">
        <thead>
          <tr>
            <th scope="col">Who</th>
            <th scope="col">Client</th>
            <th scope="col">Session</th>
            <th scope="col">Transport</th>
            <th scope="col">Revision</th>
            <th scope="col">Mode</th>
            <th scope="col">Workspace</th>
            <th scope="col">Tools offered</th>
            {answer.fleet ? <th scope="col">Replica</th> : null}
            <th scope="col">Last activity</th>
          </tr>
        </thead>
        <tbody>
          {answer.sessions.map((session) => (
            <tr key={session.id} data-session={session.id}>
              <th scope="row">{session.identity}</th>
              <td>{session.client ?? '—'}</td>
              <td>
                <code title={session.id}>{session.id.slice(0, 8)}</code>
              </td>
              <td>{session.transport}</td>
              <td class="revision">{session.revision}</td>
              <td class="mode">{session.mode}</td>
              <td>{session.workspace ?? '—'}</td>
              <td>{offered(session.exposure)}</td>
              {answer.fleet ? (
                <td class="replica" data-replica={session.replica}>
                  {servedBy(session, answer)}
                </td>
              ) : null}
              <td>{session.lastActive === undefined ? '—' : ago(session.lastActive, answer.now)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function ModernClients({ answer }: { answer: SessionsAnswer }) {
  if (answer.modernClients.length === 0) return <p>No 2026-07-28 client called in the last 30 minutes.</p>;
  return (
    <div class="overflow-auto">
      <table class="striped modern-clients">
        <thead>
          <tr>
            <th scope="col">Who</th>
            <th scope="col">Client</th>
            <th scope="col">Transport</th>
            <th scope="col">Revision</th>
            <th scope="col">Mode</th>
            <th scope="col">Workspace</th>
            <th scope="col">Tools offered</th>
            <th scope="col">Requests</th>
            <th scope="col">Last activity</th>
          </tr>
        </thead>
        <tbody>
          {answer.modernClients.map((client) => (
            <tr
              key={`${client.identity} ${client.workspace ?? ''} ${client.exposure} ${client.firstSeen}`}
              data-identity={client.identity}
            >
              <th scope="row">{client.identity}</th>
              <td>{client.client ?? '—'}</td>
              <td>{client.transport}</td>
              <td class="revision">{client.revision}</td>
              <td class="mode">{client.mode}</td>
              <td>{client.workspace ?? '—'}</td>
              <td>{offered(client.exposure)}</td>
              <td>{client.requests}</td>
              <td>{ago(client.lastActive, answer.now)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function SessionsPage(_props: { me: Me }) {
  const [answer, setAnswer] = useState<SessionsAnswer>();
  const [error, setError] = useState<string>();
  const reload = () =>
    getJson<SessionsAnswer>('/sessions')
      .then((found) => {
        setAnswer(found);
        setError(undefined);
      })
      .catch((failure: Error) => setError(failure.message));
  useEffect(() => {
    void reload();
    const timer = setInterval(reload, 5000);
    return () => clearInterval(timer);
  }, []);
  return (
    <section aria-labelledby="sessions-title">
      <div class="toolbar">
        <hgroup>
          <h1 id="sessions-title">Sessions</h1>
          <p>
            The MCP clients of this toolmesh
            {answer
              ? `: ${count(answer.sessions.length, 'session')} open, ${count(answer.modernClients.length, 'stateless client')} active`
              : ''}
            .
          </p>
        </hgroup>
        <button type="button" class="secondary compact" onClick={reload}>
          Refresh
        </button>
      </div>
      {error ? <p role="alert">{error}</p> : null}
      {!answer ? (
        <p aria-busy="true">Loading…</p>
      ) : (
        <>
          <section aria-labelledby="legacy-title">
            <h2 class="part-title" id="legacy-title">
              Open sessions (2025 revisions)
            </h2>
            <p class="part-note">
              Clients that initialized a session; each keeps the revision it agreed on then.
              {answer.fleet
                ? ' Every replica’s, from the session directory in Redis: another replica’s session shows the revision its client asked for, and no last activity.'
                : ''}
            </p>
            {answer.problem ? <p role="alert">{answer.problem}</p> : null}
            <LegacySessions answer={answer} />
          </section>
          <section aria-labelledby="modern-title">
            <h2 class="part-title" id="modern-title">
              Stateless clients (2026-07-28)
            </h2>
            <p class="part-note">
              These open no session: each request carries what it needs. Listed by token and endpoint while
              active in the last 30 minutes; the mode is the one their next call runs in.
            </p>
            <ModernClients answer={answer} />
          </section>
        </>
      )}
    </section>
  );
}
