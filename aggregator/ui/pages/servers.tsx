import { useState } from 'preact/hooks';
import { getJson, type Me } from '../api';
import { span } from '../format';
import { useLive } from '../live';

interface ServerRow {
  name: string;
  state: 'starting' | 'ready' | 'restarting' | 'stopped';
  tools: number;
  /** The MCP revision toolmesh speaks with it, once connected. */
  protocolVersion?: string;
  restarts: number;
  uptimeMs?: number;
  retryInSeconds?: number;
  lastError?: string;
  /** What toolmesh doctor would say to do about it. */
  fix?: string;
  sandboxWarning?: string;
}

function stateText(server: ServerRow): string {
  if (server.state === 'restarting' && server.retryInSeconds !== undefined)
    return `restarting (next try in ${server.retryInSeconds} s)`;
  return server.state;
}

export function ServersPage(_props: { me: Me }) {
  const [servers, setServers] = useState<ServerRow[]>();
  const [error, setError] = useState<string>();
  useLive(['servers'], () => {
    getJson<{ servers: ServerRow[] }>('/servers')
      .then((answer) => {
        setServers(answer.servers);
        setError(undefined);
      })
      .catch((failure: Error) => setError(failure.message));
  });
  return (
    <section aria-labelledby="servers-title">
      <hgroup>
        <h1 id="servers-title">Servers</h1>
        <p>
          {servers
            ? `${servers.filter((server) => server.state === 'ready').length} of ${servers.length} ready. States change here as they happen.`
            : 'The downstream MCP servers toolmesh runs.'}
        </p>
      </hgroup>
      {error ? <p role="alert">{error}</p> : null}
      {!servers ? (
        <p aria-busy="true">Loading…</p>
      ) : servers.length === 0 ? (
        <p>No server is configured: run toolmesh init, or install @toolmesh/server-* packages.</p>
      ) : (
        <div class="overflow-auto">
          <table class="striped">
            <thead>
              <tr>
                <th scope="col">Server</th>
                <th scope="col">State</th>
                <th scope="col">Tools</th>
                <th scope="col">Revision</th>
                <th scope="col">Restarts</th>
                <th scope="col">Up for</th>
                <th scope="col">Last error</th>
              </tr>
            </thead>
            <tbody>
              {servers.map((server) => (
                <tr key={server.name} data-server={server.name}>
                  <th scope="row">{server.name}</th>
                  <td>
                    <span class={`badge state-${server.state}`} data-state={server.state}>
                      {stateText(server)}
                    </span>
                  </td>
                  <td>{server.tools}</td>
                  <td class="revision">{server.protocolVersion ?? '—'}</td>
                  <td class="restarts">{server.restarts}</td>
                  <td>{server.uptimeMs !== undefined ? span(server.uptimeMs) : '—'}</td>
                  <td class="wrap">
                    {server.lastError ?? '—'}
                    {server.fix ? <small class="block fix">To fix: {server.fix}</small> : null}
                    {server.sandboxWarning ? <small class="block">{server.sandboxWarning}</small> : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
