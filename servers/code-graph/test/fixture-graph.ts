import { cpSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createLogger } from '@toolmesh/core';
import { afterAll, beforeAll } from 'vitest';
import { CodeGraph, type CodeGraphOptions, type FoundSymbol } from '../src/graph/code-graph.js';

export const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));

export interface FixtureCopy {
  /** A temporary copy of the fixture (real path), safe to edit. */
  root: string;
  /** A data directory beside it, for the databases. */
  dataDir: string;
  base: string;
  write(relative: string, content: string): void;
  remove(): void;
}

/**
 * Copies a fixture repository to a temporary folder. The TypeScript fixture also gets what a
 * checkout would hold but git does not: a .gitignore'd folder and a node_modules package, both
 * of which the index must skip.
 */
export function copyFixture(name: string): FixtureCopy {
  const base = realpathSync(mkdtempSync(path.join(os.tmpdir(), `toolmesh-code-graph-${name}-`)));
  const root = path.join(base, name);
  cpSync(path.join(FIXTURES, name), root, { recursive: true });
  const write = (relative: string, content: string) => {
    mkdirSync(path.dirname(path.join(root, relative)), { recursive: true });
    writeFileSync(path.join(root, relative), content);
  };
  if (name === 'ts-shop') {
    write('.gitignore', 'generated/\n');
    write('generated/output.ts', 'export function ignoredHelper() { return 1; }\n');
    write('node_modules/leftpad/index.js', 'export function leftpad(s) { return s; }\n');
  }
  return {
    root,
    dataDir: path.join(base, 'data'),
    base,
    write,
    remove: () => rmSync(base, { recursive: true, force: true }),
  };
}

export const quietLog = createLogger({ level: 'error', sink: () => undefined });

export async function indexedGraph(
  copy: FixtureCopy,
  options: Partial<CodeGraphOptions> = {},
): Promise<CodeGraph> {
  const graph = new CodeGraph({
    roots: [copy.root],
    dataDir: copy.dataDir,
    log: quietLog,
    watch: false,
    ...options,
  });
  await graph.ready();
  return graph;
}

/** Polls `check` until it returns a truthy value; fails with `what` after `ms`. */
export async function until<T>(what: string, check: () => T | Promise<T>, ms = 10000): Promise<T> {
  const deadline = Date.now() + ms;
  let last: T | undefined;
  while (Date.now() < deadline) {
    last = await check();
    if (last) return last;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`timed out after ${ms} ms waiting for ${what} (last: ${JSON.stringify(last)})`);
}

/** The server's tools in the order it lists them: a contract, so the tests spell it out once. */
export const TOOL_NAMES = [
  'search_code',
  'code_symbol',
  'code_callers',
  'code_callees',
  'code_impact',
  'code_trace',
  'read_symbol',
  'repo_map',
  'index_status',
  'reindex',
];

/** The symbols a name finds, as `qualifiedName (kind) path:line`: what a test of definitions compares. */
export function symbolsNamed(graph: CodeGraph, name: string): string[] {
  return graph
    .findSymbols(name)
    .map(({ symbol }) => `${symbol.qualifiedName} (${symbol.kind}) ${symbol.path}:${symbol.startLine}`);
}

/** The one symbol of that name (or the one in `file`); several or none fail the test, listing what there is. */
export function oneSymbol(graph: CodeGraph, name: string, file?: string): FoundSymbol {
  const found = graph.findSymbols(name).filter((entry) => file === undefined || entry.symbol.path === file);
  const [only] = found;
  if (!only || found.length > 1)
    throw new Error(`${name} names ${found.length} symbols: ${symbolsNamed(graph, name).join('; ')}`);
  return only;
}

/** The callers of one symbol, each with its callsites as `path:line`. */
export function callersOf(graph: CodeGraph, name: string, file?: string) {
  const target = oneSymbol(graph, name, file);
  return target.root.queries.callers(target.symbol.id).map((group) => ({
    caller: group.caller.qualifiedName,
    lines: group.callsites.map((site) => `${site.path}:${site.line}`),
  }));
}

/** What one symbol calls: qualified names, `?text` for calls bound to nothing, each with its resolution. */
export function calleesOf(graph: CodeGraph, name: string, file?: string): string[] {
  const source = oneSymbol(graph, name, file);
  return source.root.queries
    .callees(source.symbol.id)
    .map((group) => `${group.callee?.qualifiedName ?? `?${group.text}`} ${group.callsites[0]?.resolution}`);
}

/** Every edge of a kind in the first root, as `source -> target` (`?` when unresolved), sorted. */
export function edgesOf(graph: CodeGraph, kind: string): string[] {
  const db = graph.roots[0]?.index.store.db;
  if (!db) return [];
  return db
    .prepare(
      `SELECT s.qualified_name AS source, t.qualified_name AS target FROM edges e JOIN symbols s ON s.id = e.source_id
       LEFT JOIN symbols t ON t.id = e.target_id WHERE e.kind = ? ORDER BY source, target`,
    )
    .all(kind)
    .map((row) => {
      const { source, target } = row as { source: string; target: string | null };
      return `${source} -> ${target ?? '?'}`;
    });
}

/**
 * Indexes a copy of the fixture before the enclosing suite's tests (after `prepare` edits it) and
 * removes it after them; the getters read what beforeAll made.
 */
export function indexedFixtureSuite(
  name: string,
  prepare: (copy: FixtureCopy) => void = () => undefined,
  options: Partial<CodeGraphOptions> = {},
): { readonly graph: CodeGraph; readonly copy: FixtureCopy } {
  let copy: FixtureCopy | undefined;
  let graph: CodeGraph | undefined;
  beforeAll(async () => {
    copy = copyFixture(name);
    prepare(copy);
    graph = await indexedGraph(copy, options);
  });
  afterAll(async () => {
    await graph?.close();
    copy?.remove();
  });
  return {
    get graph() {
      if (!graph) throw new Error(`${name} is not indexed yet: use the suite inside a test`);
      return graph;
    },
    get copy() {
      if (!copy) throw new Error(`${name} is not copied yet: use the suite inside a test`);
      return copy;
    },
  };
}
