import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CodeGraph } from '../src/graph/code-graph.js';
import {
  calleesOf,
  callersOf,
  copyFixture,
  edgesOf,
  type FixtureCopy,
  indexedGraph,
  symbolsNamed,
} from './fixture-graph.js';

describe('C fixture', () => {
  let copy: FixtureCopy;
  let graph: CodeGraph;
  beforeAll(async () => {
    copy = copyFixture('c-bank');
    graph = await indexedGraph(copy);
  });
  afterAll(async () => {
    await graph.close();
    copy.remove();
  });

  it('finds functions, prototypes, structs, typedefs and macros, with docs and linkage', () => {
    expect(symbolsNamed(graph, 'money_add')).toEqual([
      'money_add (function) include/bank/money.h:12',
      'money_add (function) src/money.c:5',
    ]);
    const [prototype] = graph.findSymbols('money_add');
    expect(prototype?.symbol).toMatchObject({
      signature: 'money_t money_add(money_t a, money_t b)',
      doc: 'Adds two amounts.',
      exported: true,
    });
    expect(symbolsNamed(graph, 'money')).toEqual(['money (struct) include/bank/money.h:7']);
    expect(symbolsNamed(graph, 'money_t')).toEqual(['money_t (type) include/bank/money.h:7']);
    expect(graph.findSymbols('money_t')[0]?.symbol.doc).toBe('An amount in cents.');
    expect(graph.findSymbols('CENTS_PER_UNIT')[0]?.symbol).toMatchObject({
      kind: 'constant',
      startLine: 4,
      endLine: 4,
      signature: '#define CENTS_PER_UNIT',
    });
    // The include guard is no symbol; static functions stay inside their file.
    expect(graph.findSymbols('BANK_MONEY_H')).toEqual([]);
    expect(graph.findSymbols('round_cents')[0]?.symbol.exported).toBe(false);
    expect(graph.findSymbols('notify')[0]?.symbol.exported).toBe(false);
  });

  it('binds calls through a prototype to the definition, through headers included by headers', () => {
    expect(callersOf(graph, 'money_add', 'src/money.c')).toEqual([
      { caller: 'account_deposit', lines: ['src/account.c:8'] },
      { caller: 'main', lines: ['src/main.c:9'] },
    ]);
    expect(callersOf(graph, 'money_add', 'include/bank/money.h')).toEqual([]);
    expect(callersOf(graph, 'account_deposit', 'src/account.c')).toEqual([
      { caller: 'main', lines: ['src/main.c:7', 'src/main.c:8'] },
    ]);
    expect(calleesOf(graph, 'account_deposit', 'src/account.c')).toEqual([
      'money_add import',
      'notify local',
    ]);
    // A call through a function pointer names no function; a C library call is outside the root.
    expect(calleesOf(graph, 'notify')).toEqual(['?(account).on_change unresolved']);
    expect(calleesOf(graph, 'main')).toContain('?printf unresolved');
  });

  it('resolves quoted includes beside the file and in include folders; <system> headers are outside the root', () => {
    expect(edgesOf(graph, 'IMPORTS')).toEqual([
      'src/account.c -> src/account.h',
      'src/account.h -> include/bank/money.h',
      'src/main.c -> ?',
      'src/main.c -> src/account.h',
      'src/money.c -> include/bank/money.h',
    ]);
    expect(edgesOf(graph, 'REFERENCES')).toEqual(
      expect.arrayContaining(['account -> money_t', 'money_t -> money', 'notify -> account']),
    );
  });

  it('reads .h headers with the C++ grammar and counts them under cpp', () => {
    const languages = graph.roots[0]?.queries
      .status()
      .languages.map((entry) => [entry.language, entry.files]);
    expect(languages).toEqual([
      ['c', 3],
      ['cpp', 2],
    ]);
  });

  it('re-resolves the files that include a header when the header changes', async () => {
    const header = 'src/account.h';
    const original = '#include "bank/money.h"\n';
    const text = readFileSync(path.join(copy.root, header), 'utf8');
    copy.write(header, text.replace(original, ''));
    await graph.roots[0]?.index.update([header]);
    // main.c and account.c did not change, but no longer see money.h through account.h.
    expect(callersOf(graph, 'money_add', 'src/money.c')).toEqual([]);
    expect(calleesOf(graph, 'main')).toContain('?money_add unresolved');
    copy.write(header, text);
    await graph.roots[0]?.index.update([header]);
    expect(callersOf(graph, 'money_add', 'src/money.c').map((group) => group.caller)).toEqual([
      'account_deposit',
      'main',
    ]);
  });
});
