import { describe, expect, it } from 'vitest';
import {
  calleesOf,
  callersOf,
  edgesOf,
  indexedFixtureSuite,
  oneSymbol,
  symbolsNamed,
} from './fixture-graph.js';

describe('C# fixture', () => {
  const suite = indexedFixtureSuite('csharp-bank');

  it('finds namespaces, types, methods, properties and constants, named without their namespace', () => {
    expect(oneSymbol(suite.graph, 'Money.MultiplyByRate').symbol).toMatchObject({
      kind: 'method',
      path: 'Pricing/Money.cs',
      startLine: 23,
      endLine: 26,
      signature: 'public Money MultiplyByRate(IRate rate)',
      doc: 'Multiplies the amount by a IRate, rounding half up.',
      exported: true,
    });
    expect(oneSymbol(suite.graph, 'Money').symbol).toMatchObject({
      kind: 'class',
      doc: 'An amount in cents.',
    });
    expect(oneSymbol(suite.graph, 'Money.Cents').symbol).toMatchObject({
      kind: 'variable',
      signature: 'public long Cents',
    });
    expect(oneSymbol(suite.graph, 'Money.NoCents').symbol.kind).toBe('constant');
    expect(oneSymbol(suite.graph, 'IRate.Value').symbol.exported).toBe(true);
    expect(oneSymbol(suite.graph, 'Account.Audit').symbol.exported).toBe(false);
    expect(symbolsNamed(suite.graph, 'Bank.Pricing')).toEqual([
      'Bank.Pricing (module) Pricing/Money.cs:1',
      'Bank.Pricing (module) Pricing/Rates.cs:1',
    ]);
  });

  it('counts callers through this, base, bare calls, inherited fields, partial classes, var and target-typed new', () => {
    expect(callersOf(suite.graph, 'Money.Add')).toEqual([
      { caller: 'Account.Deposit', lines: ['Accounts/Account.cs:12'] },
      { caller: 'Program.Main', lines: ['Program.cs:14', 'Program.cs:15'] },
    ]);
    expect(callersOf(suite.graph, 'Money.Of')).toEqual([
      { caller: 'Account', lines: ['Accounts/Account.cs:8'] },
      { caller: 'Money.Add', lines: ['Pricing/Money.cs:18'] },
      { caller: 'Money.MultiplyByRate', lines: ['Pricing/Money.cs:25'] },
      { caller: 'Program.Main', lines: ['Program.cs:12', 'Program.cs:15'] },
    ]);
    expect(callersOf(suite.graph, 'Account.Deposit')).toEqual([
      { caller: 'SavingsAccount.Accrue', lines: ['Accounts/SavingsAccount.cs:13'] },
      { caller: 'Program.Main', lines: ['Program.cs:12'] },
    ]);
    // Audit is in the other part of the partial class; balance is a field of the base class.
    expect(callersOf(suite.graph, 'Account.Audit')).toEqual([
      { caller: 'Account.Deposit', lines: ['Accounts/Account.cs:13'] },
    ]);
    expect(callersOf(suite.graph, 'Money.MultiplyByRate')).toEqual([
      { caller: 'SavingsAccount.Accrue', lines: ['Accounts/SavingsAccount.cs:12'] },
    ]);
    expect(callersOf(suite.graph, 'Money')).toEqual([
      { caller: 'Money.Of', lines: ['Pricing/Money.cs:16'] },
      { caller: 'Program.Main', lines: ['Program.cs:13'] },
    ]);
    expect(calleesOf(suite.graph, 'Money.MultiplyByRate')).toEqual([
      'Money.Of self',
      '?System.Math.Round unresolved',
      'IRate.Value typed',
    ]);
  });

  it('resolves using directives to every file of the namespace, aliases, and base lists', () => {
    expect(edgesOf(suite.graph, 'IMPORTS')).toEqual([
      'Accounts/Account.cs -> Pricing/Money.cs',
      'Accounts/Account.cs -> Pricing/Rates.cs',
      'Accounts/SavingsAccount.cs -> Pricing/Money.cs',
      'Accounts/SavingsAccount.cs -> Pricing/Rates.cs',
      'Program.cs -> ?',
      'Program.cs -> Accounts/Account.Audit.cs',
      'Program.cs -> Accounts/Account.cs',
      'Program.cs -> Accounts/SavingsAccount.cs',
      'Program.cs -> Pricing/Money.cs',
      'Program.cs -> Pricing/Rates.cs',
    ]);
    expect(edgesOf(suite.graph, 'EXTENDS')).toEqual(['SavingsAccount -> Account']);
    expect(edgesOf(suite.graph, 'IMPLEMENTS')).toContain('FixedRate -> IRate');
    expect(edgesOf(suite.graph, 'REFERENCES')).toContain('SavingsAccount -> IRate');
  });
});

describe('C# files with syntax errors, deep nesting and long call chains', () => {
  const suite = indexedFixtureSuite('csharp-bank', (copy) => {
    copy.write(
      'Odd/Broken.cs',
      'namespace Odd;\n\npublic class Kept {}\n\npartial class : { void ( => using = ;\n',
    );
    copy.write(
      'Odd/Chain.cs',
      `namespace Odd { class Chain { void Deep(Thing y) { var x = ${'('.repeat(3000)}1${')'.repeat(3000)}; y${'.A()'.repeat(3000)}; } } }\n`,
    );
  });

  it('indexes what it can read of them and keeps serving', () => {
    expect(suite.graph.roots[0]?.index.progress.phase).toBe('ready');
    expect(suite.graph.findSymbols('Kept')).toHaveLength(1);
    expect(suite.graph.findSymbols('Chain.Deep')).toHaveLength(1);
  });
});
