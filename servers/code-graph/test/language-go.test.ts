import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CodeGraph, FoundSymbol } from '../src/graph/code-graph.js';
import {
  calleesOf,
  callersOf,
  copyFixture,
  edgesOf,
  type FixtureCopy,
  indexedGraph,
  symbolsNamed,
} from './fixture-graph.js';

function only(graph: CodeGraph, name: string): FoundSymbol['symbol'] {
  const found = graph.findSymbols(name);
  expect(found.map((entry) => entry.symbol.qualifiedName)).toEqual([expect.any(String)]);
  return (found[0] as FoundSymbol).symbol;
}

const PACKAGE_IMPORTS = [
  'bank/account.go -> money/money.go',
  'bank/account.go -> money/rates.go',
  'bank/savings.go -> money/money.go',
  'bank/savings.go -> money/rates.go',
  'cmd/app/main.go -> ?',
  'cmd/app/main.go -> bank/account.go',
  'cmd/app/main.go -> bank/savings.go',
  'cmd/app/main.go -> money/money.go',
  'cmd/app/main.go -> money/rates.go',
];

describe('Go fixture', () => {
  let copy: FixtureCopy;
  let graph: CodeGraph;
  beforeAll(async () => {
    copy = copyFixture('go-bank');
    graph = await indexedGraph(copy);
  });
  afterAll(async () => {
    await graph.close();
    copy.remove();
  });

  it('finds packages, types, functions and methods, named after their receiver type, exported by capitalisation', () => {
    expect(only(graph, 'Money.Add')).toMatchObject({
      kind: 'method',
      path: 'money/money.go',
      startLine: 18,
      endLine: 20,
      signature: 'func (m Money) Add(other Money) Money',
      doc: 'Add returns the sum of two amounts.',
      exported: true,
    });
    expect(only(graph, 'Money.isZero').exported).toBe(false);
    expect(only(graph, 'Money')).toMatchObject({ kind: 'struct', doc: 'Money is an amount in cents.' });
    expect(only(graph, 'Rate').kind).toBe('interface');
    expect(only(graph, 'Rate.Value').kind).toBe('method');
    expect(only(graph, 'Zero')).toMatchObject({ kind: 'constant', signature: 'Zero = 0', exported: true });
    expect(only(graph, 'main').exported).toBe(false);
    // One symbol per package, where its doc is; `package main` has none.
    expect(symbolsNamed(graph, 'money')).toEqual(['money (module) money/money.go:2']);
    expect(only(graph, 'money').doc).toBe('Package money holds amounts of money.');
    expect(only(graph, 'example.com/bank')).toMatchObject({ kind: 'module', path: 'go.mod' });
  });

  it('puts a method declared in another file than its type under the type', () => {
    expect(only(graph, 'Money.MultiplyByRate')).toMatchObject({ kind: 'method', path: 'money/rates.go' });
    expect(edgesOf(graph, 'CONTAINS')).toContain('Money -> Money.MultiplyByRate');
    expect(edgesOf(graph, 'CONTAINS')).toContain('Money -> Money.Add');
  });

  it('counts callers and callsites across packages: receivers, fields, embedded types and declared return types', () => {
    expect(callersOf(graph, 'Money.Add')).toEqual([
      { caller: 'Account.Deposit', lines: ['bank/account.go:18'] },
      { caller: 'main', lines: ['cmd/app/main.go:17', 'cmd/app/main.go:18'] },
    ]);
    expect(callersOf(graph, 'Account.Deposit')).toEqual([
      { caller: 'SavingsAccount.Accrue', lines: ['bank/savings.go:19'] },
      { caller: 'main', lines: ['cmd/app/main.go:12', 'cmd/app/main.go:14'] },
    ]);
    expect(callersOf(graph, 'Money.MultiplyByRate')).toEqual([
      { caller: 'SavingsAccount.Accrue', lines: ['bank/savings.go:18'] },
    ]);
    expect(callersOf(graph, 'Account.Balance')).toEqual([
      { caller: 'main', lines: ['cmd/app/main.go:17', 'cmd/app/main.go:18'] },
    ]);
    expect(callersOf(graph, 'Rate.Value')).toEqual([
      { caller: 'Money.MultiplyByRate', lines: ['money/rates.go:22'] },
    ]);
  });

  it('resolves calls within a package without imports, and composite literals as constructions', () => {
    expect(callersOf(graph, 'New')).toEqual([
      { caller: 'main', lines: ['cmd/app/main.go:12', 'cmd/app/main.go:14'] },
      { caller: 'Money.Add', lines: ['money/money.go:19'] },
      { caller: 'Money.MultiplyByRate', lines: ['money/rates.go:22'] },
    ]);
    expect(callersOf(graph, 'NewAccount')).toEqual([
      { caller: 'NewSavings', lines: ['bank/savings.go:13'] },
      { caller: 'main', lines: ['cmd/app/main.go:11'] },
    ]);
    expect(callersOf(graph, 'FixedRate')).toEqual([{ caller: 'NewSavings', lines: ['bank/savings.go:13'] }]);
    expect(calleesOf(graph, 'Money.MultiplyByRate')).toEqual([
      'Money.isZero typed',
      'New local',
      'Rate.Value typed',
    ]);
  });

  it('resolves import paths through go.mod to every file of the package, tells outside packages apart, and reads embedding as EXTENDS', () => {
    expect(edgesOf(graph, 'IMPORTS')).toEqual(PACKAGE_IMPORTS);
    expect(calleesOf(graph, 'main')).toContain('?fmt.Println external');
    expect(edgesOf(graph, 'EXTENDS')).toEqual(['SavingsAccount -> Account']);
    expect(edgesOf(graph, 'REFERENCES')).toContain('Account -> Money');
    expect(edgesOf(graph, 'REFERENCES')).toContain('Money.MultiplyByRate -> Rate');
  });
});

describe('Go fixture, edited', () => {
  let copy: FixtureCopy;
  let graph: CodeGraph;
  beforeAll(async () => {
    copy = copyFixture('go-bank');
    graph = await indexedGraph(copy);
  });
  afterAll(async () => {
    await graph.close();
    copy.remove();
  });

  it('re-resolves a caller in another package when a file it depends on changes, without parsing the caller again', async () => {
    copy.write(
      'bank/account.go',
      [
        'package bank',
        '',
        'import "example.com/bank/money"',
        '',
        'type Account struct {',
        '\tOwner   string',
        '\tbalance money.Money',
        '}',
        '',
        '// Ledger is an account that keeps every entry.',
        'type Ledger struct {',
        '\tAccount',
        '\tentries []money.Money',
        '}',
        '',
        'func NewAccount(owner string) *Ledger {',
        '\treturn &Ledger{Account: Account{Owner: owner}}',
        '}',
        '',
        'func (l *Ledger) Deposit(amount money.Money) {',
        '\tl.entries = append(l.entries, amount)',
        '\tl.Account.Deposit(amount)',
        '}',
        '',
        'func (a *Account) Deposit(amount money.Money) {',
        '\ta.balance = a.balance.Add(amount)',
        '}',
        '',
        'func (a *Account) Balance() money.Money {',
        '\treturn a.balance',
        '}',
        '',
      ].join('\n'),
    );
    const progress = await graph.roots[0]?.index.update(['bank/account.go']);
    expect(progress?.lastRun).toMatchObject({ parsed: 1 });
    expect(callersOf(graph, 'Ledger.Deposit')).toEqual([{ caller: 'main', lines: ['cmd/app/main.go:12'] }]);
    expect(callersOf(graph, 'Account.Deposit')).toEqual([
      { caller: 'Ledger.Deposit', lines: ['bank/account.go:22'] },
      { caller: 'SavingsAccount.Accrue', lines: ['bank/savings.go:19'] },
      { caller: 'main', lines: ['cmd/app/main.go:14'] },
    ]);
    // Balance is promoted from the embedded Account.
    expect(callersOf(graph, 'Account.Balance')).toEqual([
      { caller: 'main', lines: ['cmd/app/main.go:17', 'cmd/app/main.go:18'] },
    ]);
  });

  it('adds a new file of a package to the imports of the files that import the package', async () => {
    copy.write(
      'money/format.go',
      'package money\n\nimport "fmt"\n\nfunc (m Money) String() string {\n\treturn fmt.Sprint(m.Cents)\n}\n',
    );
    await graph.roots[0]?.index.update(['money/format.go']);
    const imports = edgesOf(graph, 'IMPORTS');
    expect(imports).toContain('bank/account.go -> money/format.go');
    expect(imports).toContain('cmd/app/main.go -> money/format.go');
    expect(edgesOf(graph, 'CONTAINS')).toContain('Money -> Money.String');
  });
});

describe('Go files with syntax errors, deep nesting and long call chains', () => {
  let copy: FixtureCopy;
  let graph: CodeGraph;
  beforeAll(async () => {
    copy = copyFixture('go-bank');
    copy.write('odd/broken.go', 'package odd\n\nfunc Kept() {}\n\nfunc ( { type struct { ) ] func\n');
    copy.write(
      'odd/chain.go',
      `package odd\n\nfunc Deep(y Thing) {\n\t_ = ${'('.repeat(3000)}1${')'.repeat(3000)}\n\ty${'.A()'.repeat(3000)}\n}\n`,
    );
    graph = await indexedGraph(copy);
  });
  afterAll(async () => {
    await graph.close();
    copy.remove();
  });

  it('indexes what it can read of them and keeps serving', () => {
    expect(graph.roots[0]?.index.progress.phase).toBe('ready');
    expect(graph.findSymbols('Kept')).toHaveLength(1);
    expect(graph.findSymbols('Deep')).toHaveLength(1);
  });
});
