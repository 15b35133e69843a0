// A registry of real-looking tools at any size: the 737 tools that public MCP servers really list
// (the aggregator's discovery-eval catalogs), replicated as further deployments of each server.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const EVAL = fileURLToPath(new URL('../../aggregator/test/fixtures/eval/', import.meta.url));

/** Copy k of a server is deployment k: `github`, `github-staging`, `github-eu`, … */
const DEPLOYMENTS = [
  '',
  'staging',
  'eu',
  'us-east',
  'internal',
  'sandbox',
  'team-a',
  'team-b',
  'legacy',
  'v2',
  'mirror',
  'dev',
  'qa',
  'partner',
  'archive',
];

function realCatalogs() {
  const folder = path.join(EVAL, 'catalogs');
  return readdirSync(folder)
    .filter((file) => file.endsWith('.json'))
    .sort()
    .map((file) => JSON.parse(readFileSync(path.join(folder, file), 'utf8')));
}

/** The real catalogs' requests (what a model might search for), in file order. */
export function realQueries() {
  return readFileSync(path.join(EVAL, 'queries-dev.jsonl'), 'utf8')
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line).q);
}

/** `count` registry entries, as the aggregator indexes them: whole deployments, real tools first. */
export function synthesizeTools(count) {
  const catalogs = realCatalogs();
  const entries = [];
  for (const deployment of DEPLOYMENTS) {
    for (const catalog of catalogs) {
      const server = deployment ? `${catalog.server}-${deployment}` : catalog.server;
      for (const tool of catalog.tools) {
        if (entries.length === count) return entries;
        const title = tool.title ?? tool.annotations?.title;
        entries.push({
          name: `${server}__${tool.name}`,
          server,
          tool: tool.name,
          ...(title && { title }),
          ...(tool.description && { description: tool.description }),
          inputSchema: tool.inputSchema,
        });
      }
    }
  }
  throw new Error(`the catalogs replicate to ${entries.length} tools, fewer than ${count}`);
}
