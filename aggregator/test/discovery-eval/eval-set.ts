import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { IndexedTool } from '../../src/discovery/indexed-tool.js';

const EVAL_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'eval');

interface CatalogTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema?: object;
  annotations?: { readOnlyHint?: boolean };
}

interface Catalog {
  server: string;
  tools: CatalogTool[];
}

export interface EvalQuery {
  q: string;
  /** Exposed names of the expected tool and of every alternate that also does the job. */
  relevant: Set<string>;
}

/** Exposed names as the eval assumes them: `<server-slug>__<tool>`. */
export function exposedName(server: string, tool: string): string {
  return `${server.replace(/[^A-Za-z0-9_-]/g, '_')}__${tool}`;
}

/**
 * The real catalogues of the given folders, merged into one registry: `catalogs` (38 servers,
 * the development set's registry) by default; `catalogs-extra` adds 21 servers harvested later.
 */
export function evalRegistry(folders: readonly string[] = ['catalogs']): IndexedTool[] {
  const catalogs = folders.flatMap((folder) =>
    readdirSync(path.join(EVAL_DIR, folder))
      .filter((file) => file.endsWith('.json'))
      .sort()
      .map((file) => JSON.parse(readFileSync(path.join(EVAL_DIR, folder, file), 'utf8')) as Catalog),
  );
  return catalogs.flatMap(({ server, tools }) =>
    tools.map(({ name, title, description, inputSchema, annotations }) => ({
      name: exposedName(server, name),
      server,
      tool: name,
      ...(title !== undefined && { title }),
      ...(description !== undefined && { description }),
      ...(inputSchema !== undefined && { inputSchema }),
      ...(annotations !== undefined && { annotations }),
    })),
  );
}

/** A query set (the development queries by default), each request with the tools that answer it. */
export function evalQueries(file = 'queries-dev.jsonl'): EvalQuery[] {
  return readFileSync(path.join(EVAL_DIR, file), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const { q, server, tool, alt } = JSON.parse(line) as {
        q: string;
        server: string;
        tool: string;
        alt: [string, string][];
      };
      const pairs: [string, string][] = [[server, tool], ...alt];
      return { q, relevant: new Set(pairs.map(([s, t]) => exposedName(s, t))) };
    });
}

/**
 * A query set as a model would phrase it: `queries-<set>.model.jsonl` holds, line by line,
 * each request of `queries-<set>.jsonl` beside the first query a model would send for it,
 * written from the request and the search tool's description alone. The tools that answer
 * it are the request's.
 */
export function modelPhrased(file: string): EvalQuery[] {
  const requests = evalQueries(file);
  const rewrites = readFileSync(path.join(EVAL_DIR, file.replace(/\.jsonl$/, '.model.jsonl')), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as { request: string; q: string });
  if (rewrites.length !== requests.length) throw new Error(`${file}: not one rewrite per request`);
  return requests.map((request, at) => {
    if (rewrites[at]!.request !== request.q)
      throw new Error(`${file}:${at + 1}: the rewrite is of another request`);
    return { q: rewrites[at]!.q, relevant: request.relevant };
  });
}

/** A request of a set said again in other words, with the line of the set it comes back from. */
export interface Recurrence extends EvalQuery {
  /** The request's index in its set, from 0. */
  at: number;
}

/** `queries-<set>.recurring.jsonl`: some requests of `file` said again in other words. */
export function recurringRequests(file: string): Recurrence[] {
  const requests = evalQueries(file);
  return readFileSync(path.join(EVAL_DIR, file.replace(/\.jsonl$/, '.recurring.jsonl')), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const { line: number, request, q } = JSON.parse(line) as { line: number; request: string; q: string };
      const original = requests[number - 1];
      if (original?.q !== request) throw new Error(`${file}:${number}: the recurrence is of another request`);
      return { q, relevant: original.relevant, at: number - 1 };
    });
}
