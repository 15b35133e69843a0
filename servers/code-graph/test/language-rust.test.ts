import { describe, expect, it } from 'vitest';
import { calleesOf, callersOf, edgesOf, indexedFixtureSuite, oneSymbol } from './fixture-graph.js';

describe('Rust fixture', () => {
  const suite = indexedFixtureSuite('rust-bank');

  it('finds items and impl methods with `pub` as the export flag, docs above attributes', () => {
    expect(oneSymbol(suite.graph, 'Money.add').symbol).toMatchObject({
      kind: 'method',
      path: 'src/money.rs',
      startLine: 13,
      endLine: 15,
      signature: 'pub fn add(&self, other: &Money) -> Money',
      exported: true,
    });
    expect(oneSymbol(suite.graph, 'Money.scale').symbol.exported).toBe(false);
    expect(oneSymbol(suite.graph, 'Money.new').symbol.doc).toBe('Makes an amount.');
    // The doc comment is above `#[derive(…)]`, which the symbol starts with.
    expect(oneSymbol(suite.graph, 'Money').symbol).toMatchObject({
      kind: 'struct',
      startLine: 2,
      doc: 'An amount in cents.',
    });
    expect(oneSymbol(suite.graph, 'Rate').symbol).toMatchObject({ kind: 'interface', exported: true });
    expect(oneSymbol(suite.graph, 'Rate.apply').symbol).toMatchObject({
      kind: 'method',
      doc: 'Applies the rate to an amount.',
    });
    expect(oneSymbol(suite.graph, 'ZERO').symbol).toMatchObject({ kind: 'constant', exported: true });
    expect(oneSymbol(suite.graph, 'Fixed').symbol.exported).toBe(false);
    expect(oneSymbol(suite.graph, 'open').symbol).toMatchObject({
      kind: 'function',
      doc: 'Opens an account and pays a first amount into it.',
    });
  });

  it('puts the methods of an impl block in another module under their type', () => {
    expect(oneSymbol(suite.graph, 'Money.doubled').symbol).toMatchObject({
      path: 'src/ops.rs',
      doc: 'Twice the amount.',
    });
    expect(edgesOf(suite.graph, 'CONTAINS')).toContain('Money -> Money.doubled');
  });

  it('counts callers through self, fields, Type::new(), Self::, typed parameters and impls elsewhere', () => {
    expect(callersOf(suite.graph, 'Money.add')).toEqual([
      { caller: 'Account.deposit', lines: ['src/accounts/mod.rs:18'] },
      { caller: 'Money.doubled', lines: ['src/ops.rs:6'] },
    ]);
    expect(callersOf(suite.graph, 'Money.new')).toEqual([
      { caller: 'open', lines: ['src/lib.rs:11'] },
      { caller: 'Money.add', lines: ['src/money.rs:14'] },
      { caller: 'Money.scale', lines: ['src/money.rs:18'] },
    ]);
    expect(callersOf(suite.graph, 'Account.deposit')).toEqual([
      { caller: 'SavingsAccount.accrue', lines: ['src/accounts/savings.rs:21'] },
      { caller: 'open', lines: ['src/lib.rs:11'] },
    ]);
    expect(callersOf(suite.graph, 'Money.doubled')).toEqual([
      { caller: 'SavingsAccount.accrue', lines: ['src/accounts/savings.rs:21'] },
    ]);
    expect(callersOf(suite.graph, 'Account.new')).toEqual([{ caller: 'open', lines: ['src/lib.rs:10'] }]);
    // A trait's default method calls through `self` to the trait's own methods.
    expect(calleesOf(suite.graph, 'Rate.apply')).toEqual(['Money.scale typed', 'Rate.value typed']);
    expect(callersOf(suite.graph, 'Rate.apply')).toEqual([
      { caller: 'SavingsAccount.accrue', lines: ['src/accounts/savings.rs:20'] },
    ]);
  });

  it('resolves `mod`, `use crate::…`, `super::` and `pub use`, and reads `impl Trait for Type` as IMPLEMENTS', () => {
    expect(edgesOf(suite.graph, 'IMPORTS')).toEqual([
      'src/accounts/mod.rs -> src/accounts/savings.rs',
      'src/accounts/mod.rs -> src/accounts/savings.rs',
      'src/accounts/mod.rs -> src/money.rs',
      'src/accounts/savings.rs -> src/accounts/mod.rs',
      'src/accounts/savings.rs -> src/money.rs',
      'src/lib.rs -> src/accounts/mod.rs',
      'src/lib.rs -> src/money.rs',
      'src/lib.rs -> src/money.rs',
      'src/lib.rs -> src/ops.rs',
      'src/ops.rs -> src/money.rs',
    ]);
    expect(edgesOf(suite.graph, 'IMPLEMENTS')).toContain('Fixed -> Rate');
    expect(edgesOf(suite.graph, 'REFERENCES')).toContain('SavingsAccount -> Account');
    // `Money` in lib.rs is the re-export of money::Money.
    expect(calleesOf(suite.graph, 'open')).toEqual([
      'Account.new static',
      'Account.deposit returned',
      'Money.new static',
    ]);
  });
});

describe('Rust files with syntax errors, deep nesting and long call chains', () => {
  const suite = indexedFixtureSuite('rust-bank', (copy) => {
    copy.write('src/broken.rs', 'pub fn kept() {}\n\nimpl for { fn ( -> ; use ::{ self as } }\n');
    copy.write(
      'src/chain.rs',
      `pub fn deep(y: Thing) {\n    let _ = ${'['.repeat(3000)}1${']'.repeat(3000)};\n    y${'.a()'.repeat(3000)};\n}\nmod a { mod b { use super::super::super::*; } }\n`,
    );
  });

  it('indexes what it can read of them and keeps serving', () => {
    expect(suite.graph.roots[0]?.index.progress.phase).toBe('ready');
    expect(suite.graph.findSymbols('kept')).toHaveLength(1);
    expect(suite.graph.findSymbols('deep')).toHaveLength(1);
  });
});
