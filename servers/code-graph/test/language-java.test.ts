import { describe, expect, it } from 'vitest';
import {
  calleesOf,
  callersOf,
  edgesOf,
  indexedFixtureSuite,
  oneSymbol,
  symbolsNamed,
} from './fixture-graph.js';

const SOURCES = 'src/main/java/com/bank';

describe('Java fixture', () => {
  const suite = indexedFixtureSuite('java-bank');

  it('finds packages, classes, interfaces, methods and constants with `public` as the export flag', () => {
    expect(oneSymbol(suite.graph, 'Money.multiplyByRate').symbol).toMatchObject({
      kind: 'method',
      path: `${SOURCES}/money/Money.java`,
      startLine: 23,
      endLine: 25,
      signature: 'public Money multiplyByRate(Rate rate)',
      doc: 'Multiplies the amount by a rate, rounding half up.',
      exported: true,
    });
    expect(oneSymbol(suite.graph, 'Money.cents').symbol.exported).toBe(false);
    expect(oneSymbol(suite.graph, 'Money.ZERO').symbol).toMatchObject({ kind: 'constant', exported: true });
    expect(oneSymbol(suite.graph, 'Rate').symbol).toMatchObject({
      kind: 'interface',
      doc: 'A conversion rate.',
    });
    // Interface members are public without saying so.
    expect(oneSymbol(suite.graph, 'Rate.value').symbol.exported).toBe(true);
    expect(symbolsNamed(suite.graph, 'com.bank.money')).toEqual([
      `com.bank.money (module) ${SOURCES}/money/FixedRate.java:1`,
      `com.bank.money (module) ${SOURCES}/money/Money.java:1`,
      `com.bank.money (module) ${SOURCES}/money/Rate.java:1`,
    ]);
  });

  it('counts callers through this, inherited fields and methods, typed locals, `var` and static imports', () => {
    expect(callersOf(suite.graph, 'Money.add')).toEqual([
      { caller: 'App.main', lines: [`${SOURCES}/App.java:14`, `${SOURCES}/App.java:16`] },
      { caller: 'Account.deposit', lines: [`${SOURCES}/accounts/Account.java:10`] },
    ]);
    expect(callersOf(suite.graph, 'Money.of')).toEqual([
      { caller: 'App.main', lines: [`${SOURCES}/App.java:12`, `${SOURCES}/App.java:13`] },
      { caller: 'Money.add', lines: [`${SOURCES}/money/Money.java:19`] },
      { caller: 'Money.multiplyByRate', lines: [`${SOURCES}/money/Money.java:24`] },
    ]);
    expect(callersOf(suite.graph, 'Account.deposit')).toEqual([
      { caller: 'App.main', lines: [`${SOURCES}/App.java:12`] },
      { caller: 'SavingsAccount.accrue', lines: [`${SOURCES}/accounts/SavingsAccount.java:11`] },
    ]);
    expect(callersOf(suite.graph, 'Money.multiplyByRate')).toEqual([
      { caller: 'SavingsAccount.accrue', lines: [`${SOURCES}/accounts/SavingsAccount.java:10`] },
    ]);
    expect(callersOf(suite.graph, 'Rate.value')).toEqual([
      { caller: 'Money.multiplyByRate', lines: [`${SOURCES}/money/Money.java:24`] },
    ]);
    expect(callersOf(suite.graph, 'FixedRate')).toEqual([
      { caller: 'SavingsAccount', lines: [`${SOURCES}/accounts/SavingsAccount.java:7`] },
    ]);
  });

  it('resolves single-type, on-demand and static imports, and same-package names without one', () => {
    expect(edgesOf(suite.graph, 'IMPORTS')).toEqual([
      `${SOURCES}/App.java -> ?`,
      `${SOURCES}/App.java -> ${SOURCES}/accounts/SavingsAccount.java`,
      `${SOURCES}/App.java -> ${SOURCES}/money/Money.java`,
      `${SOURCES}/App.java -> ${SOURCES}/money/Money.java`,
      `${SOURCES}/accounts/Account.java -> ${SOURCES}/money/Money.java`,
      `${SOURCES}/accounts/SavingsAccount.java -> ${SOURCES}/money/FixedRate.java`,
      `${SOURCES}/accounts/SavingsAccount.java -> ${SOURCES}/money/Money.java`,
      `${SOURCES}/accounts/SavingsAccount.java -> ${SOURCES}/money/Rate.java`,
    ]);
    // Rate is in Money's package: no import names it.
    expect(edgesOf(suite.graph, 'REFERENCES')).toContain('Money.multiplyByRate -> Rate');
    expect(edgesOf(suite.graph, 'EXTENDS')).toEqual(['SavingsAccount -> Account']);
    expect(edgesOf(suite.graph, 'IMPLEMENTS')).toContain('FixedRate -> Rate');
    expect(calleesOf(suite.graph, 'App.main')).toContain('?List.of external');
  });
});

describe('Java files with syntax errors, deep nesting and long call chains', () => {
  const suite = indexedFixtureSuite('java-bank', (copy) => {
    copy.write(
      'odd/Broken.java',
      'package odd;\n\npublic class Kept {}\n\nclass { extends implements ( import static .*;\n',
    );
    copy.write(
      'odd/Chain.java',
      `package odd;\n\nclass Chain {\n  void deep(Thing y) {\n    int x = ${'('.repeat(3000)}1${')'.repeat(3000)};\n    y${'.a()'.repeat(3000)};\n  }\n}\n`,
    );
  });

  it('indexes what it can read of them and keeps serving', () => {
    expect(suite.graph.roots[0]?.index.progress.phase).toBe('ready');
    expect(suite.graph.findSymbols('Kept')).toHaveLength(1);
    expect(suite.graph.findSymbols('Chain.deep')).toHaveLength(1);
  });
});
