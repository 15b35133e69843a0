import { describe, expect, it } from 'vitest';
import { calleesOf, callersOf, edgesOf, indexedFixtureSuite, symbolsNamed } from './fixture-graph.js';

describe('PHP fixture', () => {
  const suite = indexedFixtureSuite('php-bank');

  it('finds namespaces, classes, interfaces, traits, methods and functions, qualified by namespace', () => {
    expect(symbolsNamed(suite.graph, 'Bank.Money')).toEqual(['Bank.Money (class) src/Money.php:6']);
    expect(suite.graph.findSymbols('Bank.Money.add')[0]?.symbol).toMatchObject({
      kind: 'method',
      signature: 'public function add(Money $other): Money',
      doc: 'Adds another amount.',
      exported: true,
    });
    expect(symbolsNamed(suite.graph, 'Bank.Accounts.Auditable')).toEqual([
      'Bank.Accounts.Auditable (interface) src/Accounts/Auditable.php:5',
    ]);
    expect(suite.graph.findSymbols('Bank.Accounts.Logs')[0]?.symbol.signature).toBe('trait Logs');
    expect(suite.graph.findSymbols('Bank.Accounts.Logs.log')[0]?.symbol.exported).toBe(false);
    expect(suite.graph.findSymbols('Bank.Accounts.Account.secret')[0]?.symbol.exported).toBe(false);
    // `namespace Bank\Accounts;` owns the rest of its file.
    expect(
      suite.graph
        .findSymbols('Bank.Accounts')
        .map(({ symbol }) => `${symbol.path}:${symbol.startLine}-${symbol.endLine}`),
    ).toContain('src/Accounts/Account.php:3-34');
    expect(suite.graph.findSymbols('format_cents')[0]?.symbol.doc).toBe('Formats cents for people.');
  });

  it('binds calls through $this, typed parameters, fields, new, static and parent calls, use aliases and traits', () => {
    expect(callersOf(suite.graph, 'Bank.Money.add')).toEqual([
      { caller: 'Bank.Accounts.Account.deposit', lines: ['src/Accounts/Account.php:21'] },
      { caller: 'Bank.Accounts.Savings.accrue', lines: ['src/Accounts/Savings.php:12'] },
    ]);
    expect(callersOf(suite.graph, 'Bank.Accounts.Account.deposit')).toEqual([
      { caller: 'index.php', lines: ['index.php:8'] },
      {
        caller: 'Bank.Accounts.Savings.accrue',
        lines: ['src/Accounts/Savings.php:12', 'src/Accounts/Savings.php:13'],
      },
    ]);
    expect(calleesOf(suite.graph, 'Bank.Accounts.Savings.accrue')).toEqual([
      'Bank.Money import',
      'Bank.Accounts.Account.deposit self',
      'Bank.Money.add typed',
      'Bank.Money.zero static',
      'format_cents unique-name',
    ]);
    expect(calleesOf(suite.graph, 'Bank.Accounts.Account.audit')).toEqual(['Bank.Accounts.Logs.log self']);
    expect(calleesOf(suite.graph, 'Bank.Money.add')).toEqual(['Bank.Money local', 'Bank.Money.cents typed']);
  });

  it('maps use statements to files by namespace path, follows includes, records extends, implements and traits', () => {
    expect(edgesOf(suite.graph, 'IMPORTS')).toEqual([
      'index.php -> src/Accounts/Savings.php',
      'index.php -> src/helpers.php',
      'src/Accounts/Account.php -> src/Money.php',
      'src/Accounts/Savings.php -> src/Money.php',
    ]);
    expect(edgesOf(suite.graph, 'EXTENDS')).toEqual([
      'Bank.Accounts.Account -> Bank.Accounts.Logs',
      'Bank.Accounts.Savings -> Bank.Accounts.Account',
    ]);
    expect(edgesOf(suite.graph, 'IMPLEMENTS')).toContain('Bank.Accounts.Account -> Bank.Accounts.Auditable');
    expect(edgesOf(suite.graph, 'REFERENCES')).toContain('Bank.Accounts.Account.deposit -> Bank.Money');
  });

  it('re-resolves the files using a class when the class changes', async () => {
    suite.copy.write('src/Money.php', '<?php\n\nnamespace Bank;\n\nfinal class Money extends Amount\n{\n}\n');
    suite.copy.write(
      'src/Amount.php',
      '<?php\n\nnamespace Bank;\n\nclass Amount\n{\n    public function add(Amount $other): static\n    {\n        return $this;\n    }\n}\n',
    );
    await suite.graph.roots[0]?.index.update(['src/Money.php', 'src/Amount.php']);
    expect(calleesOf(suite.graph, 'Bank.Accounts.Account.deposit')).toEqual([
      'Bank.Amount.add field',
      'Bank.Accounts.Account.audit self',
    ]);
  });
});
