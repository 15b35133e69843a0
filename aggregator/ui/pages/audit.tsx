import { useEffect, useState } from 'preact/hooks';
import { getJson, type Me } from '../api';
import { clockTime } from '../format';

interface AuditRecord {
  time: number;
  identity: string;
  session: string;
  mode: string;
  workspace?: string;
  tool: string;
  server: string;
  argumentsDigest: { redacted: string; sha256: string };
  decision: string;
  rule: string;
  approval?: string;
  outcome: string;
  error?: string;
  durationMs: number;
}

interface AuditPage {
  page: number;
  hasMore: boolean;
  records: AuditRecord[];
  choices: { outcomes: string[]; modes: string[]; servers: string[] };
}

interface Filters {
  since: string;
  until: string;
  tool: string;
  server: string;
  identity: string;
  outcome: string;
  mode: string;
  workspace: string;
}

const NO_FILTER: Filters = {
  since: '',
  until: '',
  tool: '',
  server: '',
  identity: '',
  outcome: '',
  mode: '',
  workspace: '',
};

/** The filters as the API takes them: times as epoch milliseconds, empty fields left out. */
function queryOf(filters: Filters, page?: number): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(filters)) {
    if (value === '') continue;
    params.set(key, key === 'since' || key === 'until' ? String(new Date(value).getTime()) : value);
  }
  if (page) params.set('page', String(page));
  return params.toString();
}

function TextFilter({
  name,
  label,
  filters,
  set,
  hint,
}: {
  name: keyof Filters;
  label: string;
  filters: Filters;
  set: (next: Filters) => void;
  hint?: string;
}) {
  const onInput = (event: Event) => set({ ...filters, [name]: (event.target as HTMLInputElement).value });
  return (
    <label for={`filter-${name}`}>
      {label}
      {name === 'since' || name === 'until' ? (
        <input
          id={`filter-${name}`}
          name={name}
          type="datetime-local"
          step={1}
          value={filters[name]}
          onInput={onInput}
        />
      ) : (
        <input
          id={`filter-${name}`}
          name={name}
          type="text"
          value={filters[name]}
          placeholder={hint}
          onInput={onInput}
        />
      )}
    </label>
  );
}

function ChoiceFilter({
  name,
  label,
  filters,
  set,
  choices,
}: {
  name: keyof Filters;
  label: string;
  filters: Filters;
  set: (next: Filters) => void;
  choices: string[];
}) {
  return (
    <label>
      {label}
      <select
        name={name}
        value={filters[name]}
        onChange={(event) => set({ ...filters, [name]: (event.target as HTMLSelectElement).value })}
      >
        <option value="">any</option>
        {choices.map((choice) => (
          <option key={choice} value={choice}>
            {choice}
          </option>
        ))}
      </select>
    </label>
  );
}

function RecordRow({ record, index }: { record: AuditRecord; index: number }) {
  const [open, setOpen] = useState(false);
  const detailsId = `audit-details-${index}`;
  return (
    <>
      <tr data-tool={record.tool}>
        <td>{clockTime(record.time)}</td>
        <td>{record.identity}</td>
        <td>{record.mode}</td>
        <td>
          <code>{record.tool}</code>
        </td>
        <td>{record.approval ? `${record.decision} (${record.approval})` : record.decision}</td>
        <td>
          <span class={`badge outcome-${record.outcome}`}>{record.outcome}</span>
        </td>
        <td>
          <button
            type="button"
            class="secondary outline compact"
            aria-expanded={open}
            aria-controls={detailsId}
            // One of fifty alike buttons: its name says which call it opens.
            aria-label={`Details of ${record.tool} at ${clockTime(record.time)}`}
            onClick={() => setOpen(!open)}
          >
            {open ? 'Hide' : 'Details'}
          </button>
        </td>
      </tr>
      {open ? (
        <tr id={detailsId}>
          <td colSpan={7}>
            <dl class="record">
              <dt>Server</dt>
              <dd>{record.server}</dd>
              <dt>Workspace</dt>
              <dd>{record.workspace ?? '—'}</dd>
              <dt>Session</dt>
              <dd>
                <code>{record.session}</code>
              </dd>
              <dt>Rule</dt>
              <dd>{record.rule}</dd>
              <dt>Duration</dt>
              <dd>{record.durationMs.toFixed(1)} ms</dd>
              <dt>Arguments (redacted)</dt>
              <dd>
                <pre>{record.argumentsDigest.redacted}</pre>
              </dd>
              {record.error ? (
                <>
                  <dt>Told the client</dt>
                  <dd>
                    <pre>{record.error}</pre>
                  </dd>
                </>
              ) : null}
            </dl>
          </td>
        </tr>
      ) : null}
    </>
  );
}

export function AuditPage(_props: { me: Me }) {
  const [filters, setFilters] = useState<Filters>(NO_FILTER);
  const [applied, setApplied] = useState<Filters>(NO_FILTER);
  const [page, setPage] = useState(0);
  const [answer, setAnswer] = useState<AuditPage>();
  const [error, setError] = useState<string>();
  useEffect(() => {
    getJson<AuditPage>(`/audit?${queryOf(applied, page)}`)
      .then((found) => {
        setAnswer(found);
        setError(undefined);
      })
      .catch((failure: Error) => setError(failure.message));
  }, [applied, page]);
  const choices = answer?.choices ?? { outcomes: [], modes: [], servers: [] };
  return (
    <section aria-labelledby="audit-title">
      <hgroup>
        <h1 id="audit-title">Audit</h1>
        <p>Every call that reached policy, newest first, as toolmesh audit shows it.</p>
      </hgroup>
      <form
        class="filters"
        aria-label="Audit filters"
        onSubmit={(event) => {
          event.preventDefault();
          setPage(0);
          setApplied({ ...filters });
        }}
      >
        <div class="grid">
          <TextFilter name="since" label="From" filters={filters} set={setFilters} />
          <TextFilter name="until" label="Until" filters={filters} set={setFilters} />
          <TextFilter name="tool" label="Tool" filters={filters} set={setFilters} hint="glob, e.g. fs__*" />
          <ChoiceFilter
            name="server"
            label="Server"
            filters={filters}
            set={setFilters}
            choices={choices.servers}
          />
        </div>
        <div class="grid">
          <TextFilter name="identity" label="Identity" filters={filters} set={setFilters} />
          <ChoiceFilter
            name="outcome"
            label="Outcome"
            filters={filters}
            set={setFilters}
            choices={choices.outcomes}
          />
          <ChoiceFilter name="mode" label="Mode" filters={filters} set={setFilters} choices={choices.modes} />
          <TextFilter name="workspace" label="Workspace" filters={filters} set={setFilters} />
        </div>
        <div class="actions">
          <button type="submit">Apply filters</button>
          <button
            type="button"
            class="secondary outline"
            onClick={() => {
              setFilters(NO_FILTER);
              setApplied(NO_FILTER);
              setPage(0);
            }}
          >
            Clear
          </button>
          <a href={`/ui/api/audit.jsonl?${queryOf(applied)}`} download="toolmesh-audit.jsonl" class="export">
            Export JSON Lines
          </a>
        </div>
      </form>
      {error ? <p role="alert">{error}</p> : null}
      {!answer ? (
        <p aria-busy="true">Loading…</p>
      ) : answer.records.length === 0 ? (
        <p>No audit record matches.</p>
      ) : (
        <div class="overflow-auto">
          <table class="striped audit">
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Identity</th>
                <th scope="col">Mode</th>
                <th scope="col">Tool</th>
                <th scope="col">Decision</th>
                <th scope="col">Outcome</th>
                <th scope="col">
                  <span class="visually-hidden">Details</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {answer.records.map((record, i) => (
                <RecordRow key={`${page}-${i}-${record.time}`} record={record} index={i} />
              ))}
            </tbody>
          </table>
        </div>
      )}
      <nav aria-label="Audit pages" class="pager">
        <button
          type="button"
          class="secondary compact"
          disabled={page === 0}
          onClick={() => setPage(page - 1)}
        >
          Newer
        </button>
        <span>Page {page + 1}</span>
        <button
          type="button"
          class="secondary compact"
          disabled={!answer?.hasMore}
          onClick={() => setPage(page + 1)}
        >
          Older
        </button>
      </nav>
    </section>
  );
}
