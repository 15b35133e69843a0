import { useEffect, useState } from 'preact/hooks';
import { getJson, type Me } from '../api';

interface ToolRow {
  name: string;
  server: string;
  title?: string;
  description?: string;
  score?: number;
  actions: string[];
  requiresApproval: boolean;
  modes: { mode: string; verdict: 'allow' | 'confirm' | 'deny'; rule: string }[];
}

const VERDICT_TEXT = { allow: 'allowed', confirm: 'asks first', deny: 'denied' } as const;

export function ToolsPage(_props: { me: Me }) {
  const [query, setQuery] = useState('');
  const [answer, setAnswer] = useState<{ modes: string[]; tools: ToolRow[] }>();
  const [error, setError] = useState<string>();
  const search = (text: string) =>
    getJson<{ modes: string[]; tools: ToolRow[] }>(`/tools?q=${encodeURIComponent(text)}`)
      .then((found) => {
        setAnswer(found);
        setError(undefined);
      })
      .catch((failure: Error) => setError(failure.message));
  useEffect(() => {
    void search('');
  }, []);
  return (
    <section aria-labelledby="tools-title">
      <hgroup>
        <h1 id="tools-title">Tools</h1>
        <p>The merged catalogue, searched as search_tool_bm25 searches it.</p>
      </hgroup>
      <form
        aria-label="Tool search"
        onSubmit={(event) => {
          event.preventDefault();
          void search(query);
        }}
      >
        {/* biome-ignore lint/a11y/noRedundantRoles: Pico lays a fieldset with role group out as one input group */}
        <fieldset role="group">
          <label for="tool-query" class="visually-hidden">
            Search tools
          </label>
          <input
            id="tool-query"
            type="search"
            placeholder="service, verb, object — e.g. create ticket"
            value={query}
            onInput={(event) => setQuery((event.target as HTMLInputElement).value)}
          />
          <button type="submit">Search</button>
        </fieldset>
      </form>
      {error ? <p role="alert">{error}</p> : null}
      {!answer ? (
        <p aria-busy="true">Loading…</p>
      ) : answer.tools.length === 0 ? (
        <p>No tool matched: try other keywords (service, verb, object).</p>
      ) : (
        <div class="overflow-auto">
          <table class="striped tools">
            <caption class="visually-hidden">
              Tools, their action classes, approval rule and what each mode does with a call
            </caption>
            <thead>
              <tr>
                <th scope="col">Tool</th>
                <th scope="col">Actions</th>
                <th scope="col">Approval</th>
                {answer.modes.map((mode) => (
                  <th scope="col" key={mode}>
                    {mode}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {answer.tools.map((tool) => (
                <tr key={tool.name}>
                  <th scope="row">
                    <code>{tool.name}</code>
                    <small class="block">{tool.description ?? tool.title ?? ''}</small>
                    <details class="rules">
                      <summary>Why, by mode</summary>
                      <ul>
                        {tool.modes.map((decision) => (
                          <li key={decision.mode}>
                            <strong>{decision.mode}</strong>: {decision.rule}
                          </li>
                        ))}
                      </ul>
                    </details>
                  </th>
                  <td>{tool.actions.join(', ')}</td>
                  <td>{tool.requiresApproval ? 'always asks' : 'by mode'}</td>
                  {tool.modes.map((decision) => (
                    <td key={decision.mode}>
                      <span class={`badge verdict-${decision.verdict}`}>
                        {VERDICT_TEXT[decision.verdict]}
                      </span>
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
