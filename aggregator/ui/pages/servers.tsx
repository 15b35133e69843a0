import { useEffect, useState } from 'preact/hooks';
import type { ServerRow, ServersAnswer } from '../../src/ui/servers-view';
import { getJson, type Me } from '../api';
import { count, span } from '../format';
import { useLive } from '../live';
import { type Column, RowTable } from '../table';

/** Other replicas' states reach this one through Redis, not its event stream: read again this often. */
const FLEET_REREAD_MS = 2000;

function stateText(server: ServerRow, now: number): string {
  if (server.state === 'restarting' && server.retryAt !== undefined)
    return `restarting (next try in ${Math.max(1, Math.ceil((server.retryAt - now) / 1000))} s)`;
  return server.state;
}

function serverColumns(now: number): Column<ServerRow>[] {
  return [
    { heading: 'Server', cell: (server) => server.name },
    {
      heading: 'State',
      cell: (server) => (
        <span class={`badge state-${server.state}`} data-state={server.state}>
          {stateText(server, now)}
        </span>
      ),
    },
    { heading: 'Tools', cell: (server) => server.tools },
    { heading: 'Revision', class: 'revision', cell: (server) => server.protocolVersion ?? '—' },
    { heading: 'Restarts', class: 'restarts', cell: (server) => server.restarts },
    {
      heading: 'Up for',
      cell: (server) => (server.readySince !== undefined ? span(now - server.readySince) : '—'),
    },
    {
      heading: 'Last error',
      class: 'wrap',
      cell: (server) => (
        <>
          {server.lastError ?? '—'}
          {server.fix ? <small class="block fix">To fix: {server.fix}</small> : null}
          {server.sandboxWarning ? <small class="block">{server.sandboxWarning}</small> : null}
        </>
      ),
    },
  ];
}

function ServerTable({ servers, now, caption }: { servers: ServerRow[]; now: number; caption?: string }) {
  if (servers.length === 0)
    return <p>No server is configured: run toolmesh init, or install @toolmesh/server-* packages.</p>;
  return (
    <RowTable
      rows={servers}
      columns={serverColumns(now)}
      rowKey={(server) => server.name}
      rowData={(server) => ({ 'data-server': server.name })}
      caption={caption}
    />
  );
}

function summary(answer: ServersAnswer | undefined): string {
  if (!answer) return 'The downstream MCP servers toolmesh runs.';
  const all = answer.replicas.flatMap((replica) => replica.servers);
  const ready = all.filter((server) => server.state === 'ready').length;
  if (!answer.fleet) return `${ready} of ${all.length} ready. States change here as they happen.`;
  return `${ready} of ${all.length} ready on ${count(answer.replicas.length, 'replica')}: each runs its own servers.`;
}

export function ServersPage(_props: { me: Me }) {
  const [answer, setAnswer] = useState<ServersAnswer>();
  const [error, setError] = useState<string>();
  const reload = () => {
    getJson<ServersAnswer>('/servers')
      .then((found) => {
        setAnswer(found);
        setError(undefined);
      })
      .catch((failure: Error) => setError(failure.message));
  };
  useLive(['servers'], reload);
  const fleet = answer?.fleet ?? false;
  useEffect(() => {
    if (!fleet) return;
    const timer = setInterval(reload, FLEET_REREAD_MS);
    return () => clearInterval(timer);
  }, [fleet]);
  return (
    <section aria-labelledby="servers-title">
      <hgroup>
        <h1 id="servers-title">Servers</h1>
        <p>{summary(answer)}</p>
      </hgroup>
      {error ? <p role="alert">{error}</p> : null}
      {answer?.problem ? <p role="alert">{answer.problem}</p> : null}
      {!answer ? (
        <p aria-busy="true">Loading…</p>
      ) : !answer.fleet ? (
        <ServerTable servers={answer.replicas[0]?.servers ?? []} now={answer.now} />
      ) : (
        answer.replicas.map((replica) => (
          <section
            key={replica.replica}
            class="replica"
            data-replica={replica.replica}
            aria-labelledby={`replica-${replica.replica}`}
          >
            <h2 class="part-title" id={`replica-${replica.replica}`}>
              Replica <code>{replica.replica}</code>
              <small>
                {replica.self ? ' · this one' : ''}
                {replica.url ? ` · ${replica.url}` : ''}
                {replica.draining ? ' · draining' : ''}
              </small>
            </h2>
            <ServerTable
              servers={replica.servers}
              now={answer.now}
              caption={`Servers of replica ${replica.replica}`}
            />
          </section>
        ))
      )}
    </section>
  );
}
