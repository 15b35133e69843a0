import { cpSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createLogger } from '@toolmesh/core';
import { CodeGraph, type CodeGraphOptions } from '../src/graph/code-graph.js';

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
  'read_symbol',
  'repo_map',
  'index_status',
  'reindex',
];
