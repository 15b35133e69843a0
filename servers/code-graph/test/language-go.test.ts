import { describe, expect, it } from 'vitest';
import {
  calleesOf,
  callersOf,
  edgesOf,
  indexedFixtureSuite,
  oneSymbol,
  symbolsNamed,
} from './fixture-graph.js';

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
  const suite = indexedFixtureSuite('go-bank');

  it('finds packages, types, functions and methods, named after their receiver type, exported by capitalisation', () => {
    expect(oneSymbol(suite.graph, 'Money.Add').symbol).toMatchObject({
      kind: 'method',
      path: 'money/money.go',
      startLine: 18,
      endLine: 20,
      signature: 'func (m Money) Add(other Money) Money',
      doc: 'Add returns the sum of two amounts.',
      exported: true,
    });
    expect(oneSymbol(suite.graph, 'Money.isZero').symbol.exported).toBe(false);
    expect(oneSymbol(suite.graph, 'Money').symbol).toMatchObject({
      kind: 'struct',
      doc: 'Money is an amount in cents.',
    });
    expect(oneSymbol(suite.graph, 'Rate').symbol.kind).toBe('interface');
    expect(oneSymbol(suite.graph, 'Rate.Value').symbol.kind).toBe('method');
    expect(oneSymbol(suite.graph, 'Zero').symbol).toMatchObject({
      kind: 'constant',
      signature: 'Zero = 0',
      exported: true,
    });
    expect(oneSymbol(suite.graph, 'main').symbol.exported).toBe(false);
    // One symbol per package, where its doc is; `package main` has none.
    expect(symbolsNamed(suite.graph, 'money')).toEqual(['money (module) money/money.go:2']);
    expect(oneSymbol(suite.graph, 'money').symbol.doc).toBe('Package money holds amounts of money.');
    expect(oneSymbol(suite.graph, 'example.com/bank').symbol).toMatchObject({
      kind: 'module',
      path: 'go.mod',
    });
  });

  it('puts a method declared in another file than its type under the type', () => {
    expect(oneSymbol(suite.graph, 'Money.MultiplyByRate').symbol).toMatchObject({
      kind: 'method',
      path: 'money/rates.go',
    });
    expect(edgesOf(suite.graph, 'CONTAINS')).toContain('Money -> Money.MultiplyByRate');
    expect(edgesOf(suite.graph, 'CONTAINS')).toContain('Money -> Money.Add');
  });

  it('counts callers and callsites across packages: receivers, fields, embedded types and declared return types', () => {
    expect(callersOf(suite.graph, 'Money.Add')).toEqual([
      { caller: 'Account.Deposit', lines: ['bank/account.go:18'] },
      { caller: 'main', lines: ['cmd/app/main.go:17', 'cmd/app/main.go:18'] },
    ]);
    expect(callersOf(suite.graph, 'Account.Deposit')).toEqual([
      { caller: 'SavingsAccount.Accrue', lines: ['bank/savings.go:19'] },
      { caller: 'main', lines: ['cmd/app/main.go:12', 'cmd/app/main.go:14'] },
    ]);
    expect(callersOf(suite.graph, 'Money.MultiplyByRate')).toEqual([
      { caller: 'SavingsAccount.Accrue', lines: ['bank/savings.go:18'] },
    ]);
    expect(callersOf(suite.graph, 'Account.Balance')).toEqual([
      { caller: 'main', lines: ['cmd/app/main.go:17', 'cmd/app/main.go:18'] },
    ]);
    expect(callersOf(suite.graph, 'Rate.Value')).toEqual([
      { caller: 'Money.MultiplyByRate', lines: ['money/rates.go:22'] },
    ]);
  });

  it('resolves calls within a package without imports, and composite literals as constructions', () => {
    expect(callersOf(suite.graph, 'New')).toEqual([
      { caller: 'main', lines: ['cmd/app/main.go:12', 'cmd/app/main.go:14'] },
      { caller: 'Money.Add', lines: ['money/money.go:19'] },
      { caller: 'Money.MultiplyByRate', lines: ['money/rates.go:22'] },
    ]);
    expect(callersOf(suite.graph, 'NewAccount')).toEqual([
      { caller: 'NewSavings', lines: ['bank/savings.go:13'] },
      { caller: 'main', lines: ['cmd/app/main.go:11'] },
    ]);
    expect(callersOf(suite.graph, 'FixedRate')).toEqual([
      { caller: 'NewSavings', lines: ['bank/savings.go:13'] },
    ]);
    expect(calleesOf(suite.graph, 'Money.MultiplyByRate')).toEqual([
      'Money.isZero typed',
      'New local',
      'Rate.Value typed',
    ]);
  });

  it('resolves import paths through go.mod to every file of the package, tells outside packages apart, and reads embedding as EXTENDS', () => {
    expect(edgesOf(suite.graph, 'IMPORTS')).toEqual(PACKAGE_IMPORTS);
    expect(calleesOf(suite.graph, 'main')).toContain('?fmt.Println external');
    expect(edgesOf(suite.graph, 'EXTENDS')).toEqual(['SavingsAccount -> Account']);
    expect(edgesOf(suite.graph, 'REFERENCES')).toContain('Account -> Money');
    expect(edgesOf(suite.graph, 'REFERENCES')).toContain('Money.MultiplyByRate -> Rate');
  });
});

describe('Go fixture, edited', () => {
  const suite = indexedFixtureSuite('go-bank');

  it('re-resolves a caller in another package when a file it depends on changes, without parsing the caller again', async () => {
    suite.copy.write(
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
    const progress = await suite.graph.roots[0]?.index.update(['bank/account.go']);
    expect(progress?.lastRun).toMatchObject({ parsed: 1 });
    expect(callersOf(suite.graph, 'Ledger.Deposit')).toEqual([
      { caller: 'main', lines: ['cmd/app/main.go:12'] },
    ]);
    expect(callersOf(suite.graph, 'Account.Deposit')).toEqual([
      { caller: 'Ledger.Deposit', lines: ['bank/account.go:22'] },
      { caller: 'SavingsAccount.Accrue', lines: ['bank/savings.go:19'] },
      { caller: 'main', lines: ['cmd/app/main.go:14'] },
    ]);
    // Balance is promoted from the embedded Account.
    expect(callersOf(suite.graph, 'Account.Balance')).toEqual([
      { caller: 'main', lines: ['cmd/app/main.go:17', 'cmd/app/main.go:18'] },
    ]);
  });

  it('adds a new file of a package to the imports of the files that import the package', async () => {
    suite.copy.write(
      'money/format.go',
      'package money\n\nimport "fmt"\n\nfunc (m Money) String() string {\n\treturn fmt.Sprint(m.Cents)\n}\n',
    );
    await suite.graph.roots[0]?.index.update(['money/format.go']);
    const imports = edgesOf(suite.graph, 'IMPORTS');
    expect(imports).toContain('bank/account.go -> money/format.go');
    expect(imports).toContain('cmd/app/main.go -> money/format.go');
    expect(edgesOf(suite.graph, 'CONTAINS')).toContain('Money -> Money.String');
  });

  it('re-resolves every Go import when go.mod changes its module path, and again when it changes back', async () => {
    const index = suite.graph.roots[0]?.index;
    suite.copy.write('go.mod', 'module example.com/ledger\n\ngo 1.22\n');
    await index?.update(['go.mod']);
    expect(edgesOf(suite.graph, 'IMPORTS')).not.toContain('bank/account.go -> money/money.go');
    expect(callersOf(suite.graph, 'Money.Add')).toEqual([]);
    suite.copy.write('go.mod', 'module example.com/bank\n\ngo 1.22\n');
    await index?.update(['go.mod']);
    expect(edgesOf(suite.graph, 'IMPORTS')).toContain('bank/account.go -> money/money.go');
    expect(callersOf(suite.graph, 'Money.Add').map((group) => group.caller)).toContain('Account.Deposit');
  });
});

describe('Go files with syntax errors, deep nesting and long call chains', () => {
  const suite = indexedFixtureSuite('go-bank', (copy) => {
    copy.write('odd/broken.go', 'package odd\n\nfunc Kept() {}\n\nfunc ( { type struct { ) ] func\n');
    copy.write(
      'odd/chain.go',
      `package odd\n\nfunc Deep(y Thing) {\n\t_ = ${'('.repeat(3000)}1${')'.repeat(3000)}\n\ty${'.A()'.repeat(3000)}\n}\n`,
    );
  });

  it('indexes what it can read of them and keeps serving', () => {
    expect(suite.graph.roots[0]?.index.progress.phase).toBe('ready');
    expect(suite.graph.findSymbols('Kept')).toHaveLength(1);
    expect(suite.graph.findSymbols('Deep')).toHaveLength(1);
  });
});
