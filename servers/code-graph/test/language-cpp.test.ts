import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { calleesOf, callersOf, edgesOf, indexedFixtureSuite, symbolsNamed } from './fixture-graph.js';

describe('C++ fixture', () => {
  const suite = indexedFixtureSuite('cpp-bank');

  it('qualifies classes and methods by namespace, declarations in headers and definitions outside the class', () => {
    expect(symbolsNamed(suite.graph, 'bank.Money.add')).toEqual([
      'bank.Money.add (method) include/bank/money.hpp:10',
      'bank.Money.add (method) src/money.cpp:7',
    ]);
    const [declaration, definition] = suite.graph.findSymbols('bank.Money.add');
    expect(declaration?.symbol).toMatchObject({
      signature: 'Money add(const Money& other) const',
      doc: 'Adds another amount.',
      exported: true,
    });
    expect(definition?.symbol).toMatchObject({
      signature: 'Money Money::add(const Money& other) const',
      endLine: 9,
    });
    expect(symbolsNamed(suite.graph, 'bank.Money')).toEqual(['bank.Money (class) include/bank/money.hpp:6']);
    expect(suite.graph.findSymbols('bank.Money')[0]?.symbol.doc).toBe('An amount in cents.');
    expect(symbolsNamed(suite.graph, 'bank')).toHaveLength(3);
    expect(suite.graph.findSymbols('bank')[0]?.symbol.kind).toBe('module');
    // Access sections: protected and private members are not exported; static members are.
    expect(suite.graph.findSymbols('bank.Account.audit')[0]?.symbol.exported).toBe(false);
    expect(suite.graph.findSymbols('bank.Money.zero')[0]?.symbol.exported).toBe(true);
    // Written under `using namespace bank;`, the definition is qualified as written.
    expect(symbolsNamed(suite.graph, 'Account.deposit')).toEqual([
      'Account.deposit (method) src/account.cpp:6',
    ]);
  });

  it('attaches out-of-class definitions to their class in the header', () => {
    const contains = edgesOf(suite.graph, 'CONTAINS');
    expect(contains.filter((edge) => edge.startsWith('bank.Money -> bank.Money.add'))).toHaveLength(2);
    expect(contains).toContain('bank.Account -> Account.deposit');
    expect(contains).toContain('bank.Savings -> Savings.accrue');
  });

  it('binds member calls through this->, fields, typed locals and parameters, new, static calls and returns', () => {
    expect(callersOf(suite.graph, 'bank.Money.add', 'src/money.cpp')).toEqual([
      { caller: 'Account.deposit', lines: ['src/account.cpp:7'] },
      { caller: 'Savings.accrue', lines: ['src/account.cpp:18'] },
      { caller: 'main', lines: ['src/main.cpp:8'] },
    ]);
    expect(callersOf(suite.graph, 'Account.deposit')).toEqual([
      { caller: 'Savings.accrue', lines: ['src/account.cpp:15', 'src/account.cpp:18'] },
      { caller: 'main', lines: ['src/main.cpp:8'] },
    ]);
    expect(calleesOf(suite.graph, 'Savings.accrue')).toEqual([
      'bank.Money.scaled returned',
      'bank.Account.balance self',
      'Account.deposit self',
      'bank.Money.zero static',
      'bank.Money import',
      'bank.Money.add typed',
    ]);
    expect(calleesOf(suite.graph, 'Account.deposit')).toEqual(['bank.Money.add field', 'Account.audit self']);
    expect(calleesOf(suite.graph, 'main')).toEqual([
      'Savings.accrue typed',
      'bank.Money static',
      'Account.deposit typed',
      'bank.Money.add typed',
      '?std.printf unresolved',
      'bank.Money.cents returned',
      'bank.Account.balance typed',
    ]);
    // Inside Money's own methods `Money(…)` makes a Money; casts are no calls.
    expect(calleesOf(suite.graph, 'bank.Money.scaled', 'src/money.cpp')).toEqual(['bank.Money import']);
  });

  it('records base classes and type uses', () => {
    expect(edgesOf(suite.graph, 'EXTENDS')).toEqual(['bank.Savings -> bank.Account']);
    expect(edgesOf(suite.graph, 'REFERENCES')).toEqual(
      expect.arrayContaining([
        'Account.deposit -> bank.Money',
        'bank.Account -> bank.Money',
        'main -> bank.Savings',
      ]),
    );
    expect(edgesOf(suite.graph, 'IMPORTS')).toEqual([
      'include/bank/account.hpp -> include/bank/money.hpp',
      'src/account.cpp -> include/bank/account.hpp',
      'src/main.cpp -> ?',
      'src/main.cpp -> include/bank/account.hpp',
      'src/money.cpp -> include/bank/money.hpp',
    ]);
  });

  it('re-resolves the files that include a header when a class in it changes', async () => {
    const header = 'include/bank/account.hpp';
    const text = readFileSync(path.join(suite.copy.root, header), 'utf8');
    suite.copy.write(header, text.replace('class Savings : public Account {', 'class Savings {'));
    await suite.graph.roots[0]?.index.update([header]);
    // main.cpp and account.cpp did not change, but Savings no longer inherits deposit or balance.
    expect(edgesOf(suite.graph, 'EXTENDS')).toEqual([]);
    expect(callersOf(suite.graph, 'Account.deposit')).toEqual([]);
    expect(calleesOf(suite.graph, 'main')).toContain('?(bank.Savings).deposit unresolved');
    suite.copy.write(header, text);
    await suite.graph.roots[0]?.index.update([header]);
    expect(callersOf(suite.graph, 'Account.deposit').map((group) => group.caller)).toEqual([
      'Savings.accrue',
      'main',
    ]);
  });
});
