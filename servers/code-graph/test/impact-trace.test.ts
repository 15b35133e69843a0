import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { type ConnectedClient, connectInMemory, resultText } from '@toolmesh/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CodeGraph, FoundSymbol } from '../src/graph/code-graph.js';
import { type Impact, impactOf } from '../src/graph/impact.js';
import { isTestPath } from '../src/graph/test-paths.js';
import { traceCalls } from '../src/graph/trace.js';
import { createCodeGraphServer } from '../src/server.js';
import { copyFixture, type FixtureCopy, indexedGraph, quietLog } from './fixture-graph.js';

// biome-ignore lint/suspicious/noExplicitAny: answers are read as loose JSON; their schemas are checked by the server
type Loose = any;

function only(graph: CodeGraph, name: string): FoundSymbol {
  const found = graph.findSymbols(name);
  expect(found.map((entry) => entry.symbol.qualifiedName)).toEqual([name]);
  return found[0] as FoundSymbol;
}

function impact(graph: CodeGraph, name: string, depth = 3): Impact {
  const target = only(graph, name);
  return impactOf(target.root.index.store, target.root.queries, target.symbol, depth);
}

/** Each reached symbol as `distance qualifiedName (from EDGE to)`, file by file, tests marked. */
function radius(result: Impact): string[] {
  return result.groups.flatMap((group) =>
    group.symbols.map(
      (item) =>
        `${group.test ? 'test ' : ''}${item.distance} ${item.symbol.qualifiedName} (${item.from.qualifiedName} ${item.edge} ${item.to.qualifiedName})`,
    ),
  );
}

function database(graph: CodeGraph) {
  const root = graph.roots[0];
  if (!root) throw new Error('the graph has no root');
  return root.index.store.db;
}

function overrides(graph: CodeGraph): string[] {
  return (
    database(graph)
      .prepare(
        `SELECT s.qualified_name AS source, t.qualified_name AS target FROM edges e JOIN symbols s ON s.id = e.source_id
         JOIN symbols t ON t.id = e.target_id WHERE e.kind = 'IMPLEMENTS' AND e.resolution = 'override' ORDER BY source, target`,
      )
      .all() as { source: string; target: string }[]
  ).map((row) => `${row.source} -> ${row.target}`);
}

function importance(graph: CodeGraph): Map<string, number> {
  const rows = database(graph).prepare('SELECT qualified_name AS name, importance FROM symbols').all() as {
    name: string;
    importance: number;
  }[];
  return new Map(rows.map((row) => [row.name, row.importance]));
}

describe('test file conventions', () => {
  it('tells test files from the rest, in every language', () => {
    for (const path of [
      'src/money.test.ts',
      'lib/money.spec.js',
      'tests/helpers.ts',
      'src/__tests__/money.tsx',
      'spec/models/user_spec.rb',
      'pkg/money/money_test.go',
      'bank/test_money.py',
      'bank/money_test.py',
      'conftest.py',
      'src/test/java/bank/MoneyTest.java',
      'Bank.Tests/MoneyTests.cs',
    ])
      expect(isTestPath(path), path).toBe(true);
    for (const path of ['src/money.ts', 'src/testing.ts', 'src/contest.py', 'src/latest/x.ts', 'attest.go'])
      expect(isTestPath(path), path).toBe(false);
  });
});

describe('engine: implementations, impact and trace on ts-layers', () => {
  let copy: FixtureCopy;
  let graph: CodeGraph;
  beforeAll(async () => {
    copy = copyFixture('ts-layers');
    graph = await indexedGraph(copy);
  });
  afterAll(async () => {
    await graph.close();
    copy.remove();
  });

  it('links each method to the nearest method of the same name up every path of its bases', () => {
    expect(overrides(graph)).toEqual([
      'AuditedRepository.save -> MemoryRepository.save',
      'MemoryRepository.load -> Repository.load',
      'MemoryRepository.save -> Repository.save',
      'NullRepository.load -> Repository.load',
      'NullRepository.save -> Repository.save',
    ]);
  });

  it('walks callers to the depth, grouped by file, with the tests that reach the symbol apart', () => {
    expect(radius(impact(graph, 'Order.total'))).toEqual([
      '1 OrderService.place (OrderService.place CALLS Order.total)',
      '2 handlePlace (handlePlace CALLS OrderService.place)',
      'test 1 totalsLines (totalsLines CALLS Order.total)',
      'test 2 keepsTheLimit (keepsTheLimit CALLS OrderService.place)',
      'test 3 tests/order-service.test.ts (tests/order-service.test.ts CALLS keepsTheLimit)',
      'test 3 placesOneOrder (placesOneOrder CALLS handlePlace)',
    ]);
    const shallow = impact(graph, 'Order.total', 1);
    expect(radius(shallow)).toEqual([
      '1 OrderService.place (OrderService.place CALLS Order.total)',
      'test 1 totalsLines (totalsLines CALLS Order.total)',
    ]);
    expect(shallow).toMatchObject({ affectedSymbols: 1, testSymbols: 1, limitReached: false });
    const first = impact(graph, 'Order.total').groups[0];
    expect(first).toMatchObject({ path: 'src/service/order-service.ts', test: false });
    expect(first?.symbols[0]?.line).toBe(10);
  });

  it('reaches the callers of the interface method an implementation overrides, but not its siblings', () => {
    const found = radius(impact(graph, 'MemoryRepository.save'));
    expect(found).toEqual([
      '1 AuditedRepository.save (AuditedRepository.save CALLS MemoryRepository.save)',
      '1 Repository.save (MemoryRepository.save IMPLEMENTS Repository.save)',
      '2 OrderService.place (OrderService.place CALLS Repository.save)',
      '3 handlePlace (handlePlace CALLS OrderService.place)',
      'test 3 keepsTheLimit (keepsTheLimit CALLS OrderService.place)',
    ]);
    expect(found.join('\n')).not.toContain('NullRepository');
    expect(radius(impact(graph, 'Repository.save', 1))).toEqual([
      '1 OrderService.place (OrderService.place CALLS Repository.save)',
      '1 MemoryRepository.save (MemoryRepository.save IMPLEMENTS Repository.save)',
      '1 NullRepository.save (NullRepository.save IMPLEMENTS Repository.save)',
    ]);
  });

  it('follows type users, subclasses and constructor calls of a class', () => {
    const found = radius(impact(graph, 'MemoryRepository', 2));
    expect(found).toContain('1 AuditedRepository (AuditedRepository EXTENDS MemoryRepository)');
    expect(found).toContain('test 1 makeService (makeService CALLS MemoryRepository)');
    expect(found).toContain('test 2 makeAuditedService (makeAuditedService CALLS AuditedRepository)');
  });

  it('reaches an exported constant through the files importing it by name, through re-exports', () => {
    expect(radius(impact(graph, 'MAX_LINES'))).toEqual([
      '1 src/domain/order.ts (src/domain/order.ts IMPORTS MAX_LINES)',
      '1 src/index.ts (src/index.ts IMPORTS MAX_LINES)',
      'test 2 tests/order-service.test.ts (tests/order-service.test.ts IMPORTS src/index.ts)',
    ]);
  });

  it('traces the shortest call path, through an interface to the override that runs', () => {
    const from = only(graph, 'keepsTheLimit');
    const to = only(graph, 'AuditedRepository.save');
    const trace = traceCalls(from.root.queries, from.symbol, to.symbol, 10);
    expect(trace.found).toBe(true);
    if (!trace.found) return;
    expect(
      trace.hops.map((hop) => `${hop.from.qualifiedName} ${hop.edge} ${hop.to.qualifiedName} ${hop.lines}`),
    ).toEqual([
      'keepsTheLimit CALLS OrderService.place 11',
      'OrderService.place CALLS Repository.save 9',
      'Repository.save IMPLEMENTS MemoryRepository.save 11',
      'MemoryRepository.save IMPLEMENTS AuditedRepository.save 7',
    ]);
    const short = traceCalls(from.root.queries, from.symbol, to.symbol, 3);
    expect(short).toMatchObject({ found: false, explanation: { exhausted: false } });
  });

  it('explains where a path breaks: the unresolved call named like a symbol that reaches the target', () => {
    const from = only(graph, 'handleLoose');
    const to = only(graph, 'MemoryRepository.save');
    const trace = traceCalls(from.root.queries, from.symbol, to.symbol, 10);
    expect(trace.found).toBe(false);
    if (trace.found) return;
    expect(trace.explanation).toMatchObject({ reachable: 1, limitReached: false, exhausted: true });
    expect(trace.explanation.reaching).toBeGreaterThanOrEqual(5);
    expect(
      trace.explanation.unresolved.map(
        (lead) =>
          `${lead.caller.qualifiedName}:${lead.line} ${lead.text} → ${lead.meant.qualifiedName} +${lead.hopsToTarget}`,
      ),
    ).toEqual(['handleLoose:14 lookup().place → OrderService.place +2']);
    expect(trace.explanation.nearest.map((near) => near.symbol.qualifiedName)).toEqual([
      'lookup',
      'handleLoose',
    ]);
  });

  it('ranks symbols by PageRank: used ones above unused ones, what everything depends on highest', () => {
    const ranks = importance(graph);
    expect(ranks.get('handleLoose')).toBe(0);
    expect(ranks.get('Order.constructor')).toBe(0);
    expect(ranks.get('Order')).toBeGreaterThan(ranks.get('OrderService') ?? Number.POSITIVE_INFINITY);
    expect(ranks.get('OrderService.place')).toBeGreaterThan(
      ranks.get('handlePlace') ?? Number.POSITIVE_INFINITY,
    );
    // Called only through the interface, the override still ranks: IMPLEMENTS edges carry rank.
    expect(ranks.get('Repository.save')).toBeGreaterThan(0);
    expect(graph.roots[0]?.queries.search('order', 3)[0]?.qualifiedName).toBe('Order');
  });
});

describe('kept current on incremental updates', () => {
  let copy: FixtureCopy;
  let graph: CodeGraph;
  beforeAll(async () => {
    copy = copyFixture('ts-layers');
    graph = await indexedGraph(copy);
  });
  afterAll(async () => {
    await graph.close();
    copy.remove();
  });

  const update = (relative: string, content: string) => {
    copy.write(relative, content);
    return graph.roots[0]?.index.update([relative]);
  };

  it('relinks overrides when a base gains a method its subclass already had, or loses one', async () => {
    await update(
      'src/store/audited-repository.ts',
      [
        "import type { Order } from '../domain/order';",
        "import { MemoryRepository } from './memory-repository';",
        '',
        'export class AuditedRepository extends MemoryRepository {',
        '  save(order: Order): void {',
        '    super.save(order);',
        '  }',
        '',
        '  describe(): string {',
        "    return 'audited';",
        '  }',
        '}',
        '',
      ].join('\n'),
    );
    expect(overrides(graph)).not.toContain('AuditedRepository.describe -> MemoryRepository.describe');
    // Only an addition: the subclass's file is not resolved again, yet its override appears.
    await update(
      'src/store/memory-repository.ts',
      [
        "import { Order } from '../domain/order';",
        "import type { Repository } from './repository';",
        '',
        'export class MemoryRepository implements Repository {',
        '  private readonly orders = new Map<string, Order>();',
        '',
        '  load(id: string): Order {',
        '    return this.orders.get(id) ?? new Order(id);',
        '  }',
        '',
        '  save(order: Order): void {',
        '    this.orders.set(order.id, order);',
        '  }',
        '',
        '  describe(): string {',
        "    return 'memory';",
        '  }',
        '}',
        '',
      ].join('\n'),
    );
    expect(overrides(graph)).toContain('AuditedRepository.describe -> MemoryRepository.describe');
    // Without MemoryRepository.save, AuditedRepository.save overrides the interface's.
    await update(
      'src/store/memory-repository.ts',
      [
        "import { Order } from '../domain/order';",
        "import type { Repository } from './repository';",
        '',
        'export class MemoryRepository implements Repository {',
        '  load(id: string): Order {',
        '    return new Order(id);',
        '  }',
        '}',
        '',
      ].join('\n'),
    );
    expect(overrides(graph)).toEqual([
      'AuditedRepository.save -> Repository.save',
      'MemoryRepository.load -> Repository.load',
      'NullRepository.load -> Repository.load',
      'NullRepository.save -> Repository.save',
    ]);
    await update('src/store/memory-repository.ts', 'export const nothingHere = 1;\n');
    expect(overrides(graph)).toEqual([
      'NullRepository.load -> Repository.load',
      'NullRepository.save -> Repository.save',
    ]);
  });

  it('ranks after a batch as a full index of the same files does', async () => {
    await update(
      'src/api/extra.ts',
      "import { handlePlace } from './handler';\nexport function twice(s: any) { handlePlace(s, 'a'); handlePlace(s, 'b'); }\n",
    );
    const updated = importance(graph);
    const fresh = await indexedGraph(copy, { dataDir: `${copy.dataDir}-fresh` });
    try {
      const full = importance(fresh);
      expect([...updated.keys()].sort()).toEqual([...full.keys()].sort());
      for (const [name, value] of full) expect(updated.get(name), name).toBeCloseTo(value, 2);
      expect(updated.get('handlePlace')).toBeGreaterThan(0.5);
    } finally {
      await fresh.close();
    }
  });
});

describe('code_impact and code_trace through an SDK client', () => {
  let copy: FixtureCopy;
  let graph: CodeGraph;
  let client: ConnectedClient;
  beforeAll(async () => {
    copy = copyFixture('ts-layers');
    graph = await indexedGraph(copy);
    client = await connectInMemory(createCodeGraphServer({ graph, log: quietLog }));
  });
  afterAll(async () => {
    await client.close();
    await graph.close();
    copy.remove();
  });

  async function ok(name: string, args: Record<string, unknown>) {
    const result = (await client.call(name, args)) as CallToolResult;
    expect(result.isError, resultText(result)).toBeFalsy();
    return { answer: result.structuredContent as Loose, text: resultText(result) };
  }

  async function fails(name: string, args: Record<string, unknown>) {
    const result = (await client.call(name, args)) as CallToolResult;
    expect(result.isError).toBe(true);
    return resultText(result);
  }

  it('code_impact groups by file with distances and path edges, tests listed apart', async () => {
    const { answer, text } = await ok('code_impact', { symbol: 'Order.total' });
    expect(answer).toMatchObject({
      symbol: { qualifiedName: 'Order.total', file: 'src/domain/order.ts' },
      depth: 3,
      affectedSymbols: 2,
      affectedFiles: 2,
      testSymbols: 4,
      testFiles: 2,
      limitReached: false,
      indexComplete: true,
      truncated: false,
    });
    expect(answer.files[0]).toEqual({
      file: 'src/service/order-service.ts',
      symbols: [
        {
          qualifiedName: 'OrderService.place',
          kind: 'method',
          line: 6,
          distance: 1,
          edge: 'CALLS',
          from: 'OrderService.place',
          to: 'Order.total',
          at: 10,
        },
      ],
    });
    expect(answer.tests.map((entry: Loose) => entry.file)).toEqual([
      'src/domain/order.spec.ts',
      'tests/order-service.test.ts',
    ]);
    expect(text).toContain('2 symbols in 2 files, 4 in 2 test files');
    expect(text).toMatch(/tests:\nsrc\/domain\/order\.spec\.ts\n {2}1 {2}function totalsLines:3/);
  });

  it('code_impact takes a depth and pages within the budget', async () => {
    expect((await ok('code_impact', { symbol: 'Order.total', depth: 1 })).answer).toMatchObject({
      affectedSymbols: 1,
      testSymbols: 1,
    });
    const first = (await ok('code_impact', { symbol: 'Order', maxTokens: 600 })).answer;
    expect(first.truncated).toBe(true);
    const seen = [...first.files, ...first.tests].length;
    const rest = (await ok('code_impact', { symbol: 'Order', maxTokens: 64000, cursor: first.nextCursor }))
      .answer;
    expect(rest.truncated).toBe(false);
    expect(seen + rest.files.length + rest.tests.length).toBe(first.affectedFiles + first.testFiles);
  });

  it('code_trace shows each hop with its callsite and the callee inline', async () => {
    const { answer, text } = await ok('code_trace', { from: 'placesOneOrder', to: 'Order.total' });
    expect(answer).toMatchObject({ found: true, hopCount: 3, truncated: false });
    expect(answer.hops[0]).toEqual({
      edge: 'CALLS',
      from: 'placesOneOrder',
      to: {
        qualifiedName: 'handlePlace',
        kind: 'function',
        file: 'src/api/handler.ts',
        line: 3,
        signature: 'function handlePlace(service: OrderService, id: string): number',
      },
      lines: [6],
      callsite: {
        file: 'tests/order-service.test.ts',
        startLine: 5,
        text: "function placesOneOrder(): void {\n  if (handlePlace(makeService(), 'a') !== 100) throw new Error('wrong total');\n}",
      },
      callee: {
        file: 'src/api/handler.ts',
        startLine: 3,
        text: 'export function handlePlace(service: OrderService, id: string): number {\n  return service.place(id, 100);\n}',
      },
    });
    expect(answer.hops.map((hop: Loose) => `${hop.from} ${hop.edge} ${hop.to.qualifiedName}`)).toEqual([
      'placesOneOrder CALLS handlePlace',
      'handlePlace CALLS OrderService.place',
      'OrderService.place CALLS Order.total',
    ]);
    expect(text).toContain('placesOneOrder → Order.total: 3 hops');
    expect(text).toContain("      6 |   if (handlePlace(makeService(), 'a') !== 100)");
    const through = (await ok('code_trace', { from: 'handlePlace', to: 'NullRepository.save' })).answer;
    expect(through.hops.at(-1)).toMatchObject({ edge: 'IMPLEMENTS', from: 'Repository.save', lines: [10] });
  });

  it('code_trace explains a missing path', async () => {
    const { answer, text } = await ok('code_trace', { from: 'handleLoose', to: 'MemoryRepository.save' });
    expect(answer).toMatchObject({ found: false, hopCount: 0, hops: [] });
    expect(answer.explanation.unresolved[0]).toMatchObject({
      caller: { qualifiedName: 'handleLoose', file: 'src/api/handler.ts' },
      text: 'lookup().place',
      line: 14,
      meant: { qualifiedName: 'OrderService.place' },
    });
    expect(answer.explanation.message).toMatch(
      /No call path from handleLoose to MemoryRepository\.save within 10 hops: .*handleLoose calls lookup\(\)\.place at src\/api\/handler\.ts:14/,
    );
    expect(text).toContain('unresolved lookup().place in handleLoose');
    const unreached = (await ok('code_trace', { from: 'Order.total', to: 'handleLoose' })).answer;
    expect(unreached.explanation.message).toMatch(/Nothing calls handleLoose through resolved edges/);
    const short = await ok('code_trace', { from: 'keepsTheLimit', to: 'AuditedRepository.save', maxHops: 3 });
    expect(short.answer.explanation.message).toMatch(/a longer path may exist, raise maxHops \(at most 20\)/);
  });

  it('bad input gets an error that says what was wrong and what to do', async () => {
    expect(await fails('code_impact', { symbol: 'Nope' })).toMatch(/No symbol named "Nope".*search_code/);
    expect(await fails('code_impact', { symbol: 'Order.total', depth: 7 })).toMatch(/depth/);
    expect(await fails('code_impact', { symbol: 'save' })).toMatch(
      /names 4 symbols.*qualified name, or with file/,
    );
    expect(await fails('code_trace', { from: 'Order.total', to: 'Order.total' })).toMatch(/same symbol/);
    expect(await fails('code_trace', { from: 'Order.total' })).toMatch(/to/);
    expect(await fails('code_trace', { from: 'handlePlace', to: 'Order.total', maxHops: 0 })).toMatch(
      /maxHops/,
    );
  });
});

describe('the CLI', () => {
  const BIN = fileURLToPath(new URL('../dist/index.js', import.meta.url));
  const run = promisify(execFile);
  let copy: FixtureCopy;
  beforeAll(() => {
    copy = copyFixture('ts-layers');
  });
  afterAll(() => copy.remove());

  it('answers impact and trace with the same text as the tools', async () => {
    const env = { ...process.env, TOOLMESH_DATA_DIR: copy.dataDir };
    const impactText = await run(
      process.execPath,
      [BIN, 'impact', 'Order.total', '--depth', '1', '--root', copy.root],
      { env },
    );
    expect(impactText.stdout).toContain(
      'Order.total (src/domain/order.ts:14), depth 1: 1 symbol in 1 file, 1 in 1 test file',
    );
    const trace = await run(
      process.execPath,
      [BIN, 'trace', 'placesOneOrder', '--to', 'Order.total', '--root', copy.root, '--json'],
      { env },
    );
    expect(JSON.parse(trace.stdout)).toMatchObject({ found: true, hopCount: 3 });
  });
});
