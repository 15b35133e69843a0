import { useEffect, useState } from 'preact/hooks';
import { getJson, type Me } from '../api';
import { ago } from '../format';

interface SessionRow {
  id: string;
  identity: string;
  transport: string;
  revision: string;
  mode: string;
  workspace?: string;
  exposure: string;
  lastActive: number;
}

export function SessionsPage(_props: { me: Me }) {
  const [answer, setAnswer] = useState<{ now: number; sessions: SessionRow[] }>();
  const [error, setError] = useState<string>();
  const reload = () =>
    getJson<{ now: number; sessions: SessionRow[] }>('/sessions')
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
          <p>The MCP clients connected to this toolmesh now{answer ? `: ${answer.sessions.length}` : ''}.</p>
        </hgroup>
        <button type="button" class="secondary compact" onClick={reload}>
          Refresh
        </button>
      </div>
      {error ? <p role="alert">{error}</p> : null}
      {!answer ? (
        <p aria-busy="true">Loading…</p>
      ) : answer.sessions.length === 0 ? (
        <p>No client is connected.</p>
      ) : (
        <div class="overflow-auto">
          <table class="striped">
            <thead>
              <tr>
                <th scope="col">Who</th>
                <th scope="col">Session</th>
                <th scope="col">Transport</th>
                <th scope="col">Revision</th>
                <th scope="col">Mode</th>
                <th scope="col">Workspace</th>
                <th scope="col">Tools offered</th>
                <th scope="col">Last activity</th>
              </tr>
            </thead>
            <tbody>
              {answer.sessions.map((session) => (
                <tr key={session.id}>
                  <th scope="row">{session.identity}</th>
                  <td>
                    <code title={session.id}>{session.id.slice(0, 8)}</code>
                  </td>
                  <td>{session.transport}</td>
                  <td>{session.revision}</td>
                  <td>{session.mode}</td>
                  <td>{session.workspace ?? '—'}</td>
                  <td>{session.exposure === 'discovery' ? 'discovery only' : 'all'}</td>
                  <td>{ago(session.lastActive, answer.now)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
