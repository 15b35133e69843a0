import { useEffect, useState } from 'preact/hooks';
import type { SessionRow } from '../../src/ui/sessions-view';
import { getJson, type Me } from '../api';
import { ago, count } from '../format';
import { type Column, RowTable } from '../table';

/** What a 2025 session and a 2026-07-28 client both show. */
type ClientRow = Omit<SessionRow, 'id'>;

/** A 2026-07-28 client: no session, so it is its token on one endpoint, while it is active. */
interface ModernClientRow extends ClientRow {
  firstSeen: number;
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

const who: Column<ClientRow> = { heading: 'Who', cell: (row) => row.identity };
const client: Column<ClientRow> = { heading: 'Client', cell: (row) => row.client ?? '—' };
/** From Transport to Tools offered: the columns every client row has. */
const agreed: Column<ClientRow>[] = [
  { heading: 'Transport', cell: (row) => row.transport },
  { heading: 'Revision', class: 'revision', cell: (row) => row.revision },
  { heading: 'Mode', class: 'mode', cell: (row) => row.mode },
  { heading: 'Workspace', cell: (row) => row.workspace ?? '—' },
  { heading: 'Tools offered', cell: (row) => offered(row.exposure) },
];
const lastActivity = (now: number): Column<ClientRow> => ({
  heading: 'Last activity',
  cell: (row) => (row.lastActive === undefined ? '—' : ago(row.lastActive, now)),
});

function servedBy(session: SessionRow, answer: SessionsAnswer): string {
  if (session.replica === '') return 'none yet (handed over)';
  if (session.replica === answer.replica) return `${session.replica} (this one)`;
  if (session.replicaAlive === false) return `${session.replica} (gone: taken over at its next request)`;
  return session.replica ?? '—';
}

function LegacySessions({ answer }: { answer: SessionsAnswer }) {
  if (answer.sessions.length === 0) return <p>No session is open.</p>;
  const session: Column<SessionRow> = {
    heading: 'Session',
    cell: (row) => <code title={row.id}>{row.id.slice(0, 8)}</code>,
  };
  const replica: Column<SessionRow> = {
    heading: 'Replica',
    class: 'replica',
    cell: (row) => servedBy(row, answer),
    cellData: (row) => ({ 'data-replica': row.replica ?? '' }),
  };
  return (
    <RowTable
      class="sessions"
      rows={answer.sessions}
      columns={[
        who,
        client,
        session,
        ...agreed,
        ...(answer.fleet ? [replica] : []),
        lastActivity(answer.now),
      ]}
      rowKey={(row) => row.id}
      rowData={(row) => ({ 'data-session': row.id })}
    />
  );
}

function ModernClients({ answer }: { answer: SessionsAnswer }) {
  if (answer.modernClients.length === 0) return <p>No 2026-07-28 client called in the last 30 minutes.</p>;
  const requests: Column<ModernClientRow> = { heading: 'Requests', cell: (row) => row.requests };
  return (
    <RowTable
      class="modern-clients"
      rows={answer.modernClients}
      columns={[who, client, ...agreed, requests, lastActivity(answer.now)]}
      rowKey={(row) => `${row.identity} ${row.workspace ?? ''} ${row.exposure} ${row.firstSeen}`}
      rowData={(row) => ({ 'data-identity': row.identity })}
    />
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
