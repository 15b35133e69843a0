import { describe, expect, it } from 'vitest';
import { calleesOf, callersOf, edgesOf, indexedFixtureSuite, symbolsNamed } from './fixture-graph.js';

describe('Ruby fixture', () => {
  const suite = indexedFixtureSuite('ruby-bank');

  it('finds modules, classes, methods, class methods and accessors, qualified by module', () => {
    expect(symbolsNamed(suite.graph, 'Bank.Money')).toEqual(['Bank.Money (class) lib/bank/money.rb:3']);
    expect(suite.graph.findSymbols('Bank.Money')[0]?.symbol.doc).toBe('An amount in cents.');
    expect(suite.graph.findSymbols('Bank.Money.add')[0]?.symbol).toMatchObject({
      kind: 'method',
      signature: 'def add(other)',
      doc: 'Adds another amount.',
      startLine: 11,
      endLine: 13,
      exported: true,
    });
    expect(suite.graph.findSymbols('Bank.Money.zero')[0]?.symbol.signature).toBe('def self.zero');
    expect(suite.graph.findSymbols('Bank.Money.cents')[0]?.symbol).toMatchObject({
      kind: 'method',
      startLine: 4,
    });
    expect(symbolsNamed(suite.graph, 'Bank.Auditing')).toEqual([
      'Bank.Auditing (module) lib/bank/auditing.rb:3',
    ]);
    expect(suite.graph.findSymbols('Bank.Account.secret')[0]?.symbol.exported).toBe(false);
    expect(suite.graph.findSymbols('run')[0]?.symbol.kind).toBe('function');
  });

  it('binds calls through self, super, @fields, Foo.new locals, class methods, mixins and base classes', () => {
    expect(callersOf(suite.graph, 'Bank.Money.add')).toEqual([
      { caller: 'Bank.Account.deposit', lines: ['lib/bank/account.rb:15'] },
      { caller: 'Bank.Savings.accrue', lines: ['lib/bank/account.rb:28'] },
    ]);
    expect(callersOf(suite.graph, 'Bank.Account.deposit')).toEqual([
      { caller: 'run', lines: ['app.rb:5'] },
      { caller: 'Bank.Savings.accrue', lines: ['lib/bank/account.rb:28'] },
    ]);
    expect(calleesOf(suite.graph, 'Bank.Account.deposit')).toEqual([
      'Bank.Money.add field',
      'Bank.Auditing.audit self',
    ]);
    expect(calleesOf(suite.graph, 'Bank.Savings.accrue')).toEqual([
      'Bank.Money import',
      'Bank.Account.deposit self',
      'Bank.Money.add typed',
      'Bank.Money.zero static',
      '?JSON.generate unresolved',
    ]);
    expect(calleesOf(suite.graph, 'run')).toEqual([
      'Bank.Savings static',
      'Bank.Account.deposit typed',
      'Bank.Money static',
      'Bank.Savings.accrue typed',
    ]);
    expect(calleesOf(suite.graph, 'Bank.Savings.initialize')).toEqual(['Bank.Account.initialize self']);
    // `new` inside a class method makes that class.
    expect(calleesOf(suite.graph, 'Bank.Money.zero')).toEqual(['Bank.Money local']);
  });

  it('follows require_relative, records superclasses and included modules', () => {
    expect(edgesOf(suite.graph, 'IMPORTS')).toEqual([
      'app.rb -> lib/bank.rb',
      'lib/bank.rb -> lib/bank/account.rb',
      'lib/bank.rb -> lib/bank/money.rb',
      'lib/bank/account.rb -> ?',
      'lib/bank/account.rb -> lib/bank/auditing.rb',
      'lib/bank/account.rb -> lib/bank/money.rb',
    ]);
    expect(edgesOf(suite.graph, 'EXTENDS')).toEqual([
      'Bank.Account -> Bank.Auditing',
      'Bank.Savings -> Bank.Account',
    ]);
  });

  it('re-resolves the files that require a file when its classes change', async () => {
    suite.copy.write(
      'lib/bank/money.rb',
      'module Bank\n  module Arith\n    def add(other)\n      other\n    end\n  end\n\n  class Money\n    include Arith\n  end\nend\n',
    );
    await suite.graph.roots[0]?.index.update(['lib/bank/money.rb']);
    // account.rb did not change; `@balance.add` now reaches the method Money takes in from Arith.
    expect(calleesOf(suite.graph, 'Bank.Account.deposit')).toEqual([
      'Bank.Arith.add field',
      'Bank.Auditing.audit self',
    ]);
  });
});
