import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CodeGraph, FoundSymbol } from '../src/graph/code-graph.js';
import {
  calleesOf,
  callersOf,
  copyFixture,
  edgesOf,
  type FixtureCopy,
  indexedGraph,
} from './fixture-graph.js';

function only(graph: CodeGraph, name: string): FoundSymbol['symbol'] {
  const found = graph.findSymbols(name);
  expect(found.map((entry) => entry.symbol.qualifiedName)).toEqual([expect.any(String)]);
  return (found[0] as FoundSymbol).symbol;
}

describe('Rust fixture', () => {
  let copy: FixtureCopy;
  let graph: CodeGraph;
  beforeAll(async () => {
    copy = copyFixture('rust-bank');
    graph = await indexedGraph(copy);
  });
  afterAll(async () => {
    await graph.close();
    copy.remove();
  });

  it('finds items and impl methods with `pub` as the export flag, docs above attributes', () => {
    expect(only(graph, 'Money.add')).toMatchObject({
      kind: 'method',
      path: 'src/money.rs',
      startLine: 13,
      endLine: 15,
      signature: 'pub fn add(&self, other: &Money) -> Money',
      exported: true,
    });
    expect(only(graph, 'Money.scale').exported).toBe(false);
    expect(only(graph, 'Money.new').doc).toBe('Makes an amount.');
    // The doc comment is above `#[derive(…)]`, which the symbol starts with.
    expect(only(graph, 'Money')).toMatchObject({ kind: 'struct', startLine: 2, doc: 'An amount in cents.' });
    expect(only(graph, 'Rate')).toMatchObject({ kind: 'interface', exported: true });
    expect(only(graph, 'Rate.apply')).toMatchObject({
      kind: 'method',
      doc: 'Applies the rate to an amount.',
    });
    expect(only(graph, 'ZERO')).toMatchObject({ kind: 'constant', exported: true });
    expect(only(graph, 'Fixed').exported).toBe(false);
    expect(only(graph, 'open')).toMatchObject({
      kind: 'function',
      doc: 'Opens an account and pays a first amount into it.',
    });
  });

  it('puts the methods of an impl block in another module under their type', () => {
    expect(only(graph, 'Money.doubled')).toMatchObject({ path: 'src/ops.rs', doc: 'Twice the amount.' });
    expect(edgesOf(graph, 'CONTAINS')).toContain('Money -> Money.doubled');
  });

  it('counts callers through self, fields, Type::new(), Self::, typed parameters and impls elsewhere', () => {
    expect(callersOf(graph, 'Money.add')).toEqual([
      { caller: 'Account.deposit', lines: ['src/accounts/mod.rs:18'] },
      { caller: 'Money.doubled', lines: ['src/ops.rs:6'] },
    ]);
    expect(callersOf(graph, 'Money.new')).toEqual([
      { caller: 'open', lines: ['src/lib.rs:11'] },
      { caller: 'Money.add', lines: ['src/money.rs:14'] },
      { caller: 'Money.scale', lines: ['src/money.rs:18'] },
    ]);
    expect(callersOf(graph, 'Account.deposit')).toEqual([
      { caller: 'SavingsAccount.accrue', lines: ['src/accounts/savings.rs:21'] },
      { caller: 'open', lines: ['src/lib.rs:11'] },
    ]);
    expect(callersOf(graph, 'Money.doubled')).toEqual([
      { caller: 'SavingsAccount.accrue', lines: ['src/accounts/savings.rs:21'] },
    ]);
    expect(callersOf(graph, 'Account.new')).toEqual([{ caller: 'open', lines: ['src/lib.rs:10'] }]);
    // A trait's default method calls through `self` to the trait's own methods.
    expect(calleesOf(graph, 'Rate.apply')).toEqual(['Money.scale typed', 'Rate.value typed']);
    expect(callersOf(graph, 'Rate.apply')).toEqual([
      { caller: 'SavingsAccount.accrue', lines: ['src/accounts/savings.rs:20'] },
    ]);
  });

  it('resolves `mod`, `use crate::…`, `super::` and `pub use`, and reads `impl Trait for Type` as IMPLEMENTS', () => {
    expect(edgesOf(graph, 'IMPORTS')).toEqual([
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
    expect(edgesOf(graph, 'IMPLEMENTS')).toContain('Fixed -> Rate');
    expect(edgesOf(graph, 'REFERENCES')).toContain('SavingsAccount -> Account');
    // `Money` in lib.rs is the re-export of money::Money.
    expect(calleesOf(graph, 'open')).toEqual([
      'Account.new static',
      'Account.deposit returned',
      'Money.new static',
    ]);
  });
});

describe('Rust files with syntax errors, deep nesting and long call chains', () => {
  let copy: FixtureCopy;
  let graph: CodeGraph;
  beforeAll(async () => {
    copy = copyFixture('rust-bank');
    copy.write('src/broken.rs', 'pub fn kept() {}\n\nimpl for { fn ( -> ; use ::{ self as } }\n');
    copy.write(
      'src/chain.rs',
      `pub fn deep(y: Thing) {\n    let _ = ${'['.repeat(3000)}1${']'.repeat(3000)};\n    y${'.a()'.repeat(3000)};\n}\nmod a { mod b { use super::super::super::*; } }\n`,
    );
    graph = await indexedGraph(copy);
  });
  afterAll(async () => {
    await graph.close();
    copy.remove();
  });

  it('indexes what it can read of them and keeps serving', () => {
    expect(graph.roots[0]?.index.progress.phase).toBe('ready');
    expect(graph.findSymbols('kept')).toHaveLength(1);
    expect(graph.findSymbols('deep')).toHaveLength(1);
  });
});
