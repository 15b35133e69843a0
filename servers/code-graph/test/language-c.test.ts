import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { calleesOf, callersOf, edgesOf, indexedFixtureSuite, symbolsNamed } from './fixture-graph.js';

describe('C fixture', () => {
  const suite = indexedFixtureSuite('c-bank');

  it('finds functions, prototypes, structs, typedefs and macros, with docs and linkage', () => {
    expect(symbolsNamed(suite.graph, 'money_add')).toEqual([
      'money_add (function) include/bank/money.h:12',
      'money_add (function) src/money.c:5',
    ]);
    const [prototype] = suite.graph.findSymbols('money_add');
    expect(prototype?.symbol).toMatchObject({
      signature: 'money_t money_add(money_t a, money_t b)',
      doc: 'Adds two amounts.',
      exported: true,
    });
    expect(symbolsNamed(suite.graph, 'money')).toEqual(['money (struct) include/bank/money.h:7']);
    expect(symbolsNamed(suite.graph, 'money_t')).toEqual(['money_t (type) include/bank/money.h:7']);
    expect(suite.graph.findSymbols('money_t')[0]?.symbol.doc).toBe('An amount in cents.');
    expect(suite.graph.findSymbols('CENTS_PER_UNIT')[0]?.symbol).toMatchObject({
      kind: 'constant',
      startLine: 4,
      endLine: 4,
      signature: '#define CENTS_PER_UNIT',
    });
    // The include guard is no symbol; static functions stay inside their file.
    expect(suite.graph.findSymbols('BANK_MONEY_H')).toEqual([]);
    expect(suite.graph.findSymbols('round_cents')[0]?.symbol.exported).toBe(false);
    expect(suite.graph.findSymbols('notify')[0]?.symbol.exported).toBe(false);
  });

  it('binds calls through a prototype to the definition, through headers included by headers', () => {
    expect(callersOf(suite.graph, 'money_add', 'src/money.c')).toEqual([
      { caller: 'account_deposit', lines: ['src/account.c:8'] },
      { caller: 'main', lines: ['src/main.c:9'] },
    ]);
    expect(callersOf(suite.graph, 'money_add', 'include/bank/money.h')).toEqual([]);
    expect(callersOf(suite.graph, 'account_deposit', 'src/account.c')).toEqual([
      { caller: 'main', lines: ['src/main.c:7', 'src/main.c:8'] },
    ]);
    expect(calleesOf(suite.graph, 'account_deposit', 'src/account.c')).toEqual([
      'money_add import',
      'notify local',
    ]);
    // A call through a function pointer names no function; a C library call is outside the root.
    expect(calleesOf(suite.graph, 'notify')).toEqual(['?(account).on_change unresolved']);
    expect(calleesOf(suite.graph, 'main')).toContain('?printf unresolved');
  });

  it('resolves quoted includes beside the file and in include folders; <system> headers are outside the root', () => {
    expect(edgesOf(suite.graph, 'IMPORTS')).toEqual([
      'src/account.c -> src/account.h',
      'src/account.h -> include/bank/money.h',
      'src/main.c -> ?',
      'src/main.c -> src/account.h',
      'src/money.c -> include/bank/money.h',
    ]);
    expect(edgesOf(suite.graph, 'REFERENCES')).toEqual(
      expect.arrayContaining(['account -> money_t', 'money_t -> money', 'notify -> account']),
    );
  });

  it('reads .h headers with the C++ grammar and counts them under cpp', () => {
    const languages = suite.graph.roots[0]?.queries
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
    const text = readFileSync(path.join(suite.copy.root, header), 'utf8');
    suite.copy.write(header, text.replace(original, ''));
    await suite.graph.roots[0]?.index.update([header]);
    // main.c and account.c did not change, but no longer see money.h through account.h.
    expect(callersOf(suite.graph, 'money_add', 'src/money.c')).toEqual([]);
    expect(calleesOf(suite.graph, 'main')).toContain('?money_add unresolved');
    suite.copy.write(header, text);
    await suite.graph.roots[0]?.index.update([header]);
    expect(callersOf(suite.graph, 'money_add', 'src/money.c').map((group) => group.caller)).toEqual([
      'account_deposit',
      'main',
    ]);
  });
});
