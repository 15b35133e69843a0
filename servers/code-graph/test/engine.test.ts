import { readdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CodeGraph, databaseFileFor, type FoundSymbol } from '../src/graph/code-graph.js';
import type { CallerGroup } from '../src/graph/graph-queries.js';
import { splitIdentifierWords } from '../src/graph/name-words.js';
import { copyFixture, type FixtureCopy, indexedGraph } from './fixture-graph.js';

function only(graph: CodeGraph, name: string) {
  const found = graph.findSymbols(name);
  expect(found.map((entry) => entry.symbol.qualifiedName)).toEqual([expect.any(String)]);
  return found[0] as FoundSymbol;
}

function callers(graph: CodeGraph, name: string) {
  const target = only(graph, name);
  return target.root.queries.callers(target.symbol.id).map((group: CallerGroup) => ({
    caller: group.caller.qualifiedName,
    lines: group.callsites.map((site) => `${site.path}:${site.line}`),
  }));
}

function callees(graph: CodeGraph, name: string) {
  const source = only(graph, name);
  return source.root.queries
    .callees(source.symbol.id)
    .map((group) => group.callee?.qualifiedName ?? `?${group.text}`);
}

function edges(graph: CodeGraph, kind: string) {
  const db = graph.roots[0]?.index.store.db;
  return db
    ?.prepare(
      `SELECT s.qualified_name AS source, t.qualified_name AS target FROM edges e JOIN symbols s ON s.id = e.source_id
       LEFT JOIN symbols t ON t.id = e.target_id WHERE e.kind = ? ORDER BY source, target`,
    )
    .all(kind)
    .map((row) => {
      const { source, target } = row as { source: string; target: string | null };
      return `${source} -> ${target ?? '?'}`;
    });
}

describe('identifier splitting for search', () => {
  it('splits camelCase, PascalCase, acronyms, digits and snake_case', () => {
    expect(splitIdentifierWords('getMoneyField')).toBe('get money field');
    expect(splitIdentifierWords('parse_HTTPResponse2')).toBe('parse http response 2');
    expect(splitIdentifierWords('Money.multiplyByRate')).toBe('money multiply by rate');
  });
});

describe('TypeScript fixture', () => {
  let copy: FixtureCopy;
  let graph: CodeGraph;
  beforeAll(async () => {
    copy = copyFixture('ts-shop');
    graph = await indexedGraph(copy);
  });
  afterAll(async () => {
    await graph.close();
    copy.remove();
  });

  it('finds definitions with kind, location, signature, doc and export flag', () => {
    const { symbol } = only(graph, 'Money.multiplyByRate');
    expect(symbol).toMatchObject({
      kind: 'method',
      path: 'src/pricing/money.ts',
      startLine: 8,
      endLine: 10,
      signature: 'multiplyByRate(rate: Rate): Money',
      doc: 'Multiplies the amount by a rate, rounding half up.',
      exported: true,
    });
    expect(only(graph, 'Rate').symbol).toMatchObject({
      kind: 'interface',
      doc: 'A conversion rate between two currencies.',
    });
    expect(only(graph, 'Currency').symbol.kind).toBe('type');
    expect(only(graph, 'DEFAULT_CENTS').symbol).toMatchObject({
      kind: 'constant',
      signature: 'DEFAULT_CENTS = 100',
    });
    expect(only(graph, 'priceBasket').symbol.doc).toBe('Prices a basket at the given rate.');
    expect(graph.findSymbols('value').map((entry) => entry.symbol.qualifiedName)).toEqual([
      'Rate.value',
      'FixedRate.value',
    ]);
  });

  it('counts callers and callsites of Money.multiplyByRate, through this., fields, annotations and return types', () => {
    const found = callers(graph, 'Money.multiplyByRate');
    expect(found).toEqual([
      { caller: 'priceBasket', lines: ['src/checkout.ts:11', 'src/checkout.ts:12'] },
      { caller: 'checkout', lines: ['src/checkout.ts:22'] },
      { caller: 'SavingsAccount.accrue', lines: ['src/lib/savings.ts:8'] },
      { caller: 'SavingsAccount.accrueTwice', lines: ['src/lib/savings.ts:14', 'src/lib/savings.ts:15'] },
    ]);
    expect(found.flatMap((group) => group.lines)).toHaveLength(6);
  });

  it('resolves this. calls to the class or the base class that defines the method', () => {
    expect(callers(graph, 'Money.zero')).toEqual([
      { caller: 'Money.double', lines: ['src/pricing/money.ts:17'] },
    ]);
    expect(callers(graph, 'BaseAccount.deposit')).toEqual([
      { caller: 'checkout', lines: ['src/checkout.ts:18'] },
      { caller: 'SavingsAccount.accrue', lines: ['src/lib/savings.ts:9'] },
    ]);
  });

  it('lists callees, leaving library calls unresolved', () => {
    expect(callees(graph, 'Money.double')).toEqual(['Money.add', 'Money.zero']);
    expect(callees(graph, 'Money.multiplyByRate')).toEqual(['Money', '?Math.round', 'Rate.value']);
    expect(callees(graph, 'checkout')).toEqual([
      'FixedRate',
      'SavingsAccount',
      'BaseAccount.deposit',
      'Money',
      'SavingsAccount.accrue',
      'priceBasket',
      'Money.multiplyByRate',
    ]);
  });

  it('resolves imports through index files and re-exports, and records inheritance and type uses', () => {
    expect(edges(graph, 'IMPORTS')).toEqual([
      'src/checkout.ts -> src/lib/savings.ts',
      'src/checkout.ts -> src/pricing/index.ts',
      'src/checkout.ts -> src/pricing/money.ts',
      'src/checkout.ts -> src/pricing/rate.ts',
      'src/lib/base-account.ts -> src/pricing/index.ts',
      'src/lib/savings.ts -> src/lib/base-account.ts',
      'src/lib/savings.ts -> src/pricing/index.ts',
      'src/pricing/index.ts -> src/pricing/money.ts',
      'src/pricing/index.ts -> src/pricing/rate.ts',
      'src/pricing/money.ts -> src/pricing/rate.ts',
    ]);
    expect(edges(graph, 'EXTENDS')).toEqual(['SavingsAccount -> BaseAccount']);
    expect(edges(graph, 'IMPLEMENTS')).toEqual(['FixedRate -> Rate', 'FixedRate.value -> Rate.value']);
    expect(edges(graph, 'REFERENCES')).toContain('Money.multiplyByRate -> Rate');
    expect(edges(graph, 'CONTAINS')).toContain('Money -> Money.multiplyByRate');
    expect(edges(graph, 'CONTAINS')).toContain('src/pricing/money.ts -> Money');
  });

  it('skips .gitignore’d files and node_modules', () => {
    expect(graph.findSymbols('ignoredHelper')).toEqual([]);
    expect(graph.findSymbols('leftpad')).toEqual([]);
  });

  it('ranks search hits on split names, with the exact name first', () => {
    const hits = graph.roots[0]?.queries.search('multiply rate', 5).map((hit) => hit.qualifiedName);
    expect(hits?.[0]).toBe('Money.multiplyByRate');
    expect(graph.roots[0]?.queries.search('deposit', 5)[0]?.qualifiedName).toBe('BaseAccount.deposit');
    expect(graph.roots[0]?.queries.search('zzzz', 5)).toEqual([]);
  });

  it('does not parse unchanged files again, by content hash', async () => {
    const [result] = await graph.reindex();
    expect(result?.lastRun).toMatchObject({ parsed: 0, unchanged: 6, removed: 0 });
  });

  it('keeps its database in the data directory, named by the root, and writes nothing into the project', () => {
    const file = databaseFileFor(copy.dataDir, copy.root);
    expect(graph.roots[0]?.index.store.db.name).toBe(file);
    expect(path.dirname(file)).toBe(path.join(copy.dataDir, 'code-graph'));
    const written = readdirSync(copy.root, { recursive: true }).map(String).sort();
    expect(written.filter((entry) => /sqlite|\.db|-wal|-shm/.test(entry))).toEqual([]);
  });
});

describe('JavaScript fixture', () => {
  let copy: FixtureCopy;
  let graph: CodeGraph;
  beforeAll(async () => {
    copy = copyFixture('js-app');
    graph = await indexedGraph(copy);
  });
  afterAll(async () => {
    await graph.close();
    copy.remove();
  });

  it('resolves ES imports, CommonJS require and new-assigned locals', () => {
    expect(callees(graph, 'main')).toEqual(['Logger', 'Logger.log', 'formatCents', 'shout']);
    expect(callers(graph, 'Logger.log')).toEqual([{ caller: 'main', lines: ['main.js:6', 'main.js:7'] }]);
    expect(only(graph, 'formatCents').symbol).toMatchObject({
      kind: 'function',
      doc: 'Formats cents as a string.',
    });
    expect(edges(graph, 'IMPORTS')).toEqual(['cli.js -> ?', 'main.js -> helpers.js', 'main.js -> util.js']);
  });

  it('tells calls into outside packages from calls it could not resolve', () => {
    const start = only(graph, 'start');
    expect(
      start.root.queries
        .callees(start.symbol.id)
        .map((group) => `${group.text} ${group.callsites[0]?.resolution}`),
    ).toEqual(['program.parse external', 'console.log unresolved']);
    expect(graph.roots[0]?.queries.status()).toMatchObject({ externalCalls: 1 });
  });
});

describe('Python fixture', () => {
  let copy: FixtureCopy;
  let graph: CodeGraph;
  beforeAll(async () => {
    copy = copyFixture('py-bank');
    graph = await indexedGraph(copy);
  });
  afterAll(async () => {
    await graph.close();
    copy.remove();
  });

  it('finds classes, methods, docstrings and module constants', () => {
    expect(only(graph, 'Money').symbol).toMatchObject({
      kind: 'class',
      doc: 'An amount in cents.',
      path: 'bank/money.py',
    });
    expect(only(graph, 'Account._audit').symbol.exported).toBe(false);
    expect(only(graph, 'ZERO_CENTS').symbol.kind).toBe('constant');
  });

  it('resolves self calls through base classes, self fields, relative and package imports', () => {
    expect(callers(graph, 'Account.deposit')).toEqual([
      { caller: 'run', lines: ['app.py:7'] },
      { caller: 'SavingsAccount.accrue', lines: ['bank/accounts.py:19'] },
    ]);
    expect(callers(graph, 'Money.scaled')).toEqual([
      { caller: 'SavingsAccount.accrue', lines: ['bank/accounts.py:18'] },
    ]);
    expect(callers(graph, 'Money')).toEqual([
      { caller: 'run', lines: ['app.py:7'] },
      { caller: 'Account.__init__', lines: ['bank/accounts.py:7'] },
      { caller: 'Money.add', lines: ['bank/money.py:8'] },
      { caller: 'Money.scaled', lines: ['bank/money.py:11'] },
    ]);
    expect(edges(graph, 'EXTENDS')).toEqual(['SavingsAccount -> Account']);
    expect(edges(graph, 'IMPORTS')).toEqual([
      'app.py -> bank/accounts.py',
      'app.py -> bank/money.py',
      'bank/accounts.py -> bank/money.py',
    ]);
  });
});

describe('garbage input', () => {
  let copy: FixtureCopy;
  let graph: CodeGraph;
  beforeAll(async () => {
    copy = copyFixture('js-app');
    copy.write('binary.ts', '\u0000\u0001\u0002\uFFFD'.repeat(2000));
    copy.write('unbalanced.ts', 'class Broken { method( { if (x ) { '.repeat(300));
    copy.write(
      'deep.js',
      `${'['.repeat(5000)}${']'.repeat(5000)}\nexport function afterDeep() { return 1; }\n`,
    );
    copy.write('chain.js', `export function chained(x) { return x${'.a()'.repeat(3000)}; }\n`);
    copy.write(
      'variance.ts',
      'export interface Box<in T> { put(value: T): void }\nexport function useBox(b: Box<number>) { b.put(1); }\n',
    );
    copy.write('huge.ts', `export const big = "${'x'.repeat(1024 * 1024 + 10)}";\n`);
    copy.write('empty.py', '');
    copy.write(
      'overloads.ts',
      [
        'export function pad(text: string): string;',
        'export function pad(text: string, width: number): string;',
        'export function pad(text: string, width = 2) { return text.padStart(width); }',
        'export class Doc {',
        '  write(line: string): void;',
        '  write(lines: string[]): void;',
        '  write(input: string | string[]) { this.flush(); }',
        '  flush() {}',
        '}',
        '',
      ].join('\n'),
    );
    graph = await indexedGraph(copy);
  });
  afterAll(async () => {
    await graph.close();
    copy.remove();
  });

  it('indexes what it can, keeps files with syntax errors, skips files over 1 MB, and keeps serving', () => {
    const status = graph.roots[0]?.queries.status();
    expect(status?.files).toBe(11);
    expect(only(graph, 'pad').symbol).toMatchObject({
      startLine: 1,
      endLine: 3,
      signature: 'function pad(text: string): string',
    });
    expect(only(graph, 'Doc.write').symbol).toMatchObject({
      startLine: 5,
      endLine: 7,
      signature: 'write(line: string): void',
    });
    expect(callers(graph, 'Doc.flush')).toEqual([{ caller: 'Doc.write', lines: ['overloads.ts:7'] }]);
    expect(only(graph, 'afterDeep').symbol.path).toBe('deep.js');
    expect(only(graph, 'chained').symbol.path).toBe('chain.js');
    expect(only(graph, 'Box.put').symbol.kind).toBe('method');
    expect(callers(graph, 'Box.put')).toEqual([{ caller: 'useBox', lines: ['variance.ts:2'] }]);
    expect(graph.findSymbols('big')).toEqual([]);
    expect(graph.roots[0]?.index.progress.phase).toBe('ready');
  });
});
