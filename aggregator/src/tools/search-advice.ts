import type { ToolSearch } from '../discovery/tool-index.js';

/** At most this many servers are named when none comes closer than another. */
const SERVERS_NAMED = 10;

const quoted = (words: readonly string[]) => words.map((word) => `"${word}"`).join(', ');

/**
 * What a model should know to search better, or nothing when the search went well: what was
 * left out of a long query, that the embeddings stage was left out, the query's words no tool uses, and, when the best hit is weak,
 * the servers whose tools come closest and a request for a query in a tool's own words.
 */
export function searchAdvice(
  found: ToolSearch,
  embeddingsProblem: string | undefined,
  servers: () => string[],
): string | undefined {
  const said: string[] = [];
  if (found.ignored) said.push(found.ignored);
  if (embeddingsProblem) said.push(`Ranked by words alone: ${embeddingsProblem}`);
  if (!found.weak) return said.length > 0 ? said.join(' ') : undefined;
  said.push(
    found.hits.length === 0 ? 'No tool matched.' : 'The best match is weak: it explains little of the query.',
  );
  if (found.unmatched.length > 0) said.push(`No tool uses the words ${quoted(found.unmatched)}.`);
  if (found.closestServers.length > 0) {
    said.push(`The servers whose tools come closest: ${found.closestServers.join(', ')}.`);
  } else {
    const all = servers();
    if (all.length > 0)
      said.push(
        `The servers: ${all.slice(0, SERVERS_NAMED).join(', ')}${all.length > SERVERS_NAMED ? ` and ${all.length - SERVERS_NAMED} more` : ''}.`,
      );
  }
  said.push(
    'Search again in the words a tool would use: the service, the action and the object (e.g. "github create pull request"), or "server:<name>" and a verb; list_my_tools lists what is callable.',
  );
  return said.join(' ');
}
