import { rmSync } from 'node:fs';
import path from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { type ConnectedClient, connectInMemory, resultText } from '@toolmesh/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CodeGraph } from '../src/graph/code-graph.js';
import { createCodeGraphServer } from '../src/server.js';
import { copyFixture, type FixtureCopy, indexedGraph, quietLog, TOOL_NAMES } from './fixture-graph.js';

// biome-ignore lint/suspicious/noExplicitAny: answers are read as loose JSON; their schemas are checked by the server
type Loose = any;

let copy: FixtureCopy;
let graph: CodeGraph;
let client: ConnectedClient;

beforeAll(async () => {
  copy = copyFixture('ts-shop');
  graph = await indexedGraph(copy);
  client = await connectInMemory(createCodeGraphServer({ graph, log: quietLog }));
});
afterAll(async () => {
  await client.close();
  await graph.close();
  copy.remove();
});

async function ok(name: string, args: Record<string, unknown> = {}) {
  const result = (await client.call(name, args)) as CallToolResult;
  expect(result.isError, resultText(result)).toBeFalsy();
  return result.structuredContent as Loose;
}

async function fails(name: string, args: Record<string, unknown> = {}) {
  const result = (await client.call(name, args)) as CallToolResult;
  expect(result.isError).toBe(true);
  return resultText(result);
}

describe('code-graph tools through an SDK client', () => {
  it('lists the tools with read-only annotations and the read action class', async () => {
    const { tools } = await client.client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(TOOL_NAMES);
    for (const tool of tools) {
      expect(tool.annotations?.readOnlyHint).toBe(true);
      expect(tool._meta?.['toolmesh/actions']).toEqual(['read']);
    }
  });

  it('code_callers gives every caller with every callsite, and both counts', async () => {
    const answer = await ok('code_callers', { symbol: 'Money.multiplyByRate' });
    expect(answer).toMatchObject({ callerCount: 4, callsiteCount: 6, indexComplete: true, truncated: false });
    expect(answer.symbol).toMatchObject({ file: 'src/pricing/money.ts', line: 8 });
    expect(answer.callers[0]).toMatchObject({
      caller: { qualifiedName: 'priceBasket' },
      callsites: [
        { file: 'src/checkout.ts', line: 11, resolution: 'typed' },
        { file: 'src/checkout.ts', line: 12, resolution: 'returned' },
      ],
    });
    const text = resultText(
      (await client.call('code_callers', { symbol: 'Money.multiplyByRate' })) as CallToolResult,
    );
    expect(text).toContain('4 callers, 6 callsites');
    expect(text).toContain('src/lib/savings.ts:14');
  });

  it('code_callers pages within the budget', async () => {
    const first = await ok('code_callers', { symbol: 'Money.multiplyByRate', maxTokens: 700 });
    expect(first.truncated).toBe(true);
    expect(first.callers.length).toBeGreaterThan(0);
    const rest = await ok('code_callers', {
      symbol: 'Money.multiplyByRate',
      maxTokens: 4000,
      cursor: first.nextCursor,
    });
    expect(first.callers.length + rest.callers.length).toBe(4);
  });

  it('code_callees lists resolved and unresolved callees', async () => {
    const answer = await ok('code_callees', { symbol: 'Money.multiplyByRate' });
    expect(answer).toMatchObject({ calleeCount: 3, callsiteCount: 3, unresolvedCallsites: 1 });
    expect(answer.callees.map((group: Loose) => group.callee?.qualifiedName ?? group.text)).toEqual([
      'Money',
      'Math.round',
      'Rate.value',
    ]);
  });

  it('code_symbol finds a definition, lists every match of an ambiguous name, and narrows by file', async () => {
    expect(await ok('code_symbol', { name: 'Money' })).toMatchObject({
      total: 1,
      matches: [
        { kind: 'class', file: 'src/pricing/money.ts', line: 4, doc: 'An amount of money in minor units.' },
      ],
    });
    const value = await ok('code_symbol', { name: 'value' });
    expect(value.matches.map((match: Loose) => `${match.qualifiedName} ${match.file}:${match.line}`)).toEqual(
      ['Rate.value src/pricing/rate.ts:3', 'FixedRate.value src/pricing/rate.ts:9'],
    );
    expect((await ok('code_symbol', { name: 'deposit', file: 'src/lib/base-account.ts' })).total).toBe(1);
  });

  it('an ambiguous name for code_callers is an error listing the candidates', async () => {
    const text = await fails('code_callers', { symbol: 'value' });
    expect(text).toMatch(/names 2 symbols: Rate\.value .* FixedRate\.value/);
    expect(text).toMatch(/qualified name, or with file/);
  });

  it('file:line picks one of two definitions of a name in one file (an interface and a const)', async () => {
    const index = graph.roots[0]?.index;
    copy.write(
      'src/shape.ts',
      'export interface Shape {\n  area(): number;\n}\n\nexport const Shape = { unit: 1 };\n\nexport function useShape(shape: Shape) {\n  return shape.area() * Shape.unit;\n}\n',
    );
    await index?.update(['src/shape.ts']);
    try {
      const sameFile = await fails('code_callees', { symbol: 'Shape', file: 'src/shape.ts' });
      expect(sameFile).toMatch(
        /names 2 symbols: Shape \(interface\) at src\/shape\.ts:1; Shape \(\w+\) at src\/shape\.ts:5/,
      );
      expect(await ok('code_symbol', { name: 'Shape', file: 'src/shape.ts:5' })).toMatchObject({
        total: 1,
        matches: [{ file: 'src/shape.ts', line: 5 }],
      });
      expect(await fails('code_callers', { symbol: 'Shape', file: 'src/shape.ts:3' })).toMatch(
        /No symbol named "Shape" in src\/shape\.ts:3/,
      );
    } finally {
      rmSync(path.join(copy.root, 'src/shape.ts'));
      await index?.update(['src/shape.ts']);
    }
  });

  it('search_code ranks by words of split names, filters by kind and path', async () => {
    const answer = await ok('search_code', { query: 'multiply by rate' });
    expect(answer.results[0]).toMatchObject({ qualifiedName: 'Money.multiplyByRate' });
    const classes = await ok('search_code', { query: 'account', kind: 'class' });
    expect(classes.results.map((hit: Loose) => hit.qualifiedName).sort()).toEqual([
      'BaseAccount',
      'SavingsAccount',
    ]);
    const inLib = await ok('search_code', { query: 'money', path: 'src/lib' });
    expect(inLib.results.every((hit: Loose) => hit.file.startsWith('src/lib/'))).toBe(true);
  });

  it('read_symbol reads a signature, a body, and a body with its dependencies', async () => {
    expect((await ok('read_symbol', { symbol: 'Money.zero', level: 'signature' })).source).toBe(
      'zero(): Money',
    );
    expect((await ok('read_symbol', { symbol: 'Money.zero' })).source).toBe(
      '  zero(): Money {\n    return new Money(0);\n  }',
    );
    const withDependencies = await ok('read_symbol', {
      symbol: 'SavingsAccount.accrue',
      level: 'dependencies',
    });
    expect(
      withDependencies.dependencies.map(
        (dependency: Loose) => `${dependency.relation} ${dependency.symbol.qualifiedName}`,
      ),
    ).toEqual(['CALLS Money.multiplyByRate', 'CALLS BaseAccount.deposit', 'REFERENCES Money']);
    const blocked = await ok('read_symbol', { symbol: 'Money', maxTokens: 256 });
    expect(blocked).toMatchObject({ blockedByBudget: true, source: '' });
    expect(blocked.minimumRequiredBytes).toBeGreaterThan(256);
  });

  it('repo_map puts the most used files and symbols first, within the budget', async () => {
    const map = await ok('repo_map', {});
    expect(map.files[0].file).toBe('src/pricing/money.ts');
    expect(map.files[0].symbols[0].qualifiedName).toBe('Money');
    const lib = await ok('repo_map', { path: 'src/lib' });
    expect(lib.files.map((entry: Loose) => entry.file).sort()).toEqual([
      'src/lib/base-account.ts',
      'src/lib/savings.ts',
    ]);
    const small = await ok('repo_map', { maxTokens: 300 });
    expect(small.truncated).toBe(true);
  });

  it('index_status reports files, nodes and edges by kind and language, and the unresolved-call ratio', async () => {
    const [root] = (await ok('index_status')).roots;
    expect(root).toMatchObject({
      phase: 'ready',
      complete: true,
      files: 6,
      pendingChanges: 0,
      watching: 'off',
      languages: [{ language: 'typescript', files: 6, symbols: 20 }],
      symbolsByKind: { class: 4, interface: 1, method: 11, function: 2, constant: 1, type: 1 },
      calls: 26,
      unresolvedCalls: 2,
    });
    expect(root.unresolvedCallRatio).toBeCloseTo(2 / 26, 3);
    expect(root.edgesByKind).toMatchObject({ EXTENDS: 1, IMPLEMENTS: 2, IMPORTS: 10 });
    expect(root.database.startsWith(copy.dataDir)).toBe(true);
  });

  it('reindex brings in changes made while nothing watched, and reports progress', async () => {
    copy.write(
      'src/late.ts',
      "import { Money } from './pricing';\nexport const late = (m: Money) => m.zero();\n",
    );
    const progress: number[] = [];
    const result = (await client.client.callTool({ name: 'reindex', arguments: {} }, undefined, {
      onprogress: (update) => progress.push(update.progress),
    })) as CallToolResult;
    expect(result.structuredContent).toMatchObject({
      roots: [{ run: { parsed: 1, unchanged: 6, removed: 0 } }],
    });
    expect(progress.length).toBeGreaterThan(0);
    expect(
      (await ok('code_callers', { symbol: 'Money.zero' })).callers.map(
        (group: Loose) => group.caller.qualifiedName,
      ),
    ).toContain('late');
  });

  it('bad input gets an error that says what was wrong and what to do', async () => {
    expect(await fails('code_symbol', { name: 'NoSuchThing' })).toMatch(
      /No symbol named "NoSuchThing".*search_code/,
    );
    expect(await fails('code_callers', { symbol: 'Money', file: '../../etc/passwd' })).toMatch(
      /outside the indexed roots/,
    );
    expect(await fails('search_code', { query: '   ' })).toMatch(/query is empty/);
    expect(await fails('search_code', { query: '' })).toMatch(/query/);
    expect(await fails('repo_map', { path: '/etc' })).toMatch(/outside the indexed roots/);
    expect(await fails('code_callees', { symbol: 'Money.add', cursor: 'garbage' })).toMatch(/cursor/);
    expect(await fails('read_symbol', { symbol: 'Money', level: 'everything' })).toMatch(/level/);
  });
});

describe('while the first index runs', () => {
  it('answers from what is indexed and says the index is incomplete', async () => {
    const fresh = copyFixture('py-bank');
    const building = new CodeGraph({
      roots: [fresh.root],
      dataDir: fresh.dataDir,
      log: quietLog,
      watch: false,
    });
    const early = await connectInMemory(createCodeGraphServer({ graph: building, log: quietLog }));
    try {
      const started = building.start();
      const answer = (await early.call('search_code', { query: 'money' })) as CallToolResult;
      expect(answer.structuredContent).toMatchObject({ indexComplete: false });
      expect(resultText(answer)).toMatch(/The index is not complete .*index_status/);
      await started;
      const later = (await early.call('search_code', { query: 'money' })) as CallToolResult;
      expect(later.structuredContent?.indexComplete).toBe(true);
      expect((later.structuredContent as Loose).results[0]).toMatchObject({ qualifiedName: 'Money' });
    } finally {
      await early.close();
      await building.close();
      fresh.remove();
    }
  });
});
