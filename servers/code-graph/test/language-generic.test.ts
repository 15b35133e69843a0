import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { connectInMemory, resultText } from '@toolmesh/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CodeGraph } from '../src/graph/code-graph.js';
import {
  languageOf,
  languageSupport,
  languagesByExtension,
  optionalLanguage,
} from '../src/graph/languages.js';
import { createCodeGraphServer } from '../src/server.js';
import {
  calleesOf,
  callersOf,
  copyFixture,
  type FixtureCopy,
  indexedFixtureSuite,
  indexedGraph,
  quietLog,
  symbolsNamed,
} from './fixture-graph.js';

describe('optional grammars', () => {
  it('are offered when their package is installed, as they are here', () => {
    const optional = languageSupport().filter((entry) =>
      ['elixir', 'haskell', 'julia', 'ocaml', 'scala'].includes(entry.language),
    );
    expect(optional.map((entry) => [entry.language, entry.installed])).toEqual([
      ['elixir', true],
      ['haskell', true],
      ['julia', true],
      ['ocaml', true],
      ['scala', true],
    ]);
    expect(languageOf('lib/money.ex')?.id).toBe('elixir');
    expect(languageSupport().find((entry) => entry.language === 'ruby')?.installed).toBe(true);
  });

  it('claim no files when the grammar package or its tags query is missing', () => {
    const missingPackage = optionalLanguage('klingon', ['.tlh'], 'tree-sitter-klingon', {
      package: 'tree-sitter-klingon',
      file: 'queries/tags.scm',
    });
    // tree-sitter-julia is installed but ships no queries/tags.scm (hence our own query).
    const missingQuery = optionalLanguage('julia-upstream', ['.jlx'], 'tree-sitter-julia', {
      package: 'tree-sitter-julia',
      file: 'queries/tags.scm',
    });
    expect(missingPackage.installed?.()).toBe(false);
    expect(missingQuery.installed?.()).toBe(false);
    const table = languagesByExtension([missingPackage, missingQuery]);
    expect(table.size).toBe(0);
  });

  it('are listed by index_status with whether each is installed', async () => {
    const copy = copyFixture('scala-bank');
    const graph = await indexedGraph(copy);
    const client = await connectInMemory(createCodeGraphServer({ graph, log: quietLog }));
    try {
      const result = (await client.call('index_status', {})) as CallToolResult;
      const { languages } = result.structuredContent as {
        languages: { language: string; installed: boolean }[];
      };
      expect(languages).toContainEqual({ language: 'scala', extensions: ['.scala', '.sc'], installed: true });
      expect(languages.map((entry) => entry.language)).toEqual(
        expect.arrayContaining(['c', 'cpp', 'ruby', 'php', 'bash']),
      );
      expect(resultText(result)).toMatch(/languages read: .*\bscala\b/);
    } finally {
      await client.close();
      await graph.close();
      copy.remove();
    }
  });
});

/** Each optional language through the engine, read by the one tags-driven extractor. */
function fixture(name: string, check: (graph: CodeGraph) => void) {
  describe(`${name} fixture`, () => {
    let copy: FixtureCopy;
    let graph: CodeGraph;
    beforeAll(async () => {
      copy = copyFixture(name);
      graph = await indexedGraph(copy);
    });
    afterAll(async () => {
      await graph.close();
      copy.remove();
    });
    it('nests definitions by range into qualified names and binds calls', () => check(graph));
  });
}

fixture('elixir-bank', (graph) => {
  expect(symbolsNamed(graph, 'Bank.Money.add')).toEqual(['Bank.Money.add (function) lib/money.ex:6']);
  expect(graph.findSymbols('Bank.Money.add')[0]?.symbol).toMatchObject({
    doc: 'Adds two amounts.',
    signature: 'def add(%{cents: a}, %{cents: b})',
  });
  expect(graph.findSymbols('Bank.Money')[0]?.symbol.kind).toBe('module');
  expect(graph.findSymbols('Bank.Money.secret')[0]?.symbol.exported).toBe(false);
  expect(callersOf(graph, 'Bank.Money.new')).toEqual([
    { caller: 'Bank.Account.open', lines: ['lib/account.ex:6', 'lib/account.ex:6'] },
    { caller: 'Bank.Money.add', lines: ['lib/money.ex:6'] },
  ]);
  expect(calleesOf(graph, 'Bank.Account.deposit')).toEqual(['Bank.Money.add static']);
  expect(graph.roots[0]?.queries.status().languages.map((entry) => entry.language)).toEqual(['elixir']);
});

fixture('haskell-bank', (graph) => {
  expect(symbolsNamed(graph, 'Bank.Money.add')).toEqual(['Bank.Money.add (function) src/Money.hs:8']);
  expect(graph.findSymbols('Bank.Money.add')[0]?.symbol.doc).toBe('Adds two amounts.');
  expect(graph.findSymbols('Bank.Money.Money')[0]?.symbol.kind).toBe('type');
  expect(callersOf(graph, 'Bank.Money.add')).toEqual([
    { caller: 'Bank.Account.deposit', lines: ['src/Account.hs:6'] },
    { caller: 'Bank.Money.double', lines: ['src/Money.hs:11'] },
  ]);
});

fixture('julia-bank', (graph) => {
  expect(symbolsNamed(graph, 'Bank.add')).toEqual(['Bank.add (function) src/Money.jl:9']);
  expect(graph.findSymbols('Bank.add')[0]?.symbol).toMatchObject({
    doc: 'Adds two amounts.',
    signature: 'function add(a::Money, b::Money)::Money',
  });
  expect(graph.findSymbols('Bank.Money')[0]?.symbol).toMatchObject({
    kind: 'struct',
    doc: 'An amount in cents.',
  });
  expect(callersOf(graph, 'Bank.add')).toEqual([
    { caller: 'deposit', lines: ['src/Account.jl:2'] },
    { caller: 'Bank.double', lines: ['src/Money.jl:13'] },
  ]);
  expect(calleesOf(graph, 'Bank.add')).toEqual(['Bank.Money local']);
});

fixture('ocaml-bank', (graph) => {
  expect(symbolsNamed(graph, 'Ledger.total')).toEqual(['Ledger.total (function) money.ml:10']);
  expect(graph.findSymbols('add')[0]?.symbol.doc).toBe('Adds two amounts.');
  expect(callersOf(graph, 'add')).toEqual([{ caller: 'double', lines: ['money.ml:7'] }]);
  // Operators the query tags as calls are not kept; a file's module (`Money.add`) is not known.
  expect(calleesOf(graph, 'add')).toEqual([]);
  expect(calleesOf(graph, 'deposit')).toEqual(['?Money.add unresolved']);
});

fixture('scala-bank', (graph) => {
  expect(symbolsNamed(graph, 'Money.add')).toEqual(['Money.add (method) src/Money.scala:6']);
  expect(graph.findSymbols('Money.add')[0]?.symbol).toMatchObject({
    doc: 'Adds another amount.',
    signature: 'def add(other: Money): Money',
  });
  expect(graph.findSymbols('Auditing')[0]?.symbol.kind).toBe('interface');
  expect(graph.findSymbols('Money.secret')[0]?.symbol.exported).toBe(false);
  expect(calleesOf(graph, 'Money.double')).toEqual(['Money.add self']);
  expect(calleesOf(graph, 'Account.open')).toEqual(['Account.deposit self', 'Money unique-name']);
});

describe('garbage input in the languages added here', () => {
  const suite = indexedFixtureSuite('bash-tools', (copy) => {
    const deep = (open: string, close: string) => `${open.repeat(4000)}${close.repeat(4000)}`;
    copy.write('deep.c', `int deep(void) { return ${deep('(', ')')}1; }\nint after_c(void) { return 1; }\n`);
    copy.write('chain.cpp', `void chained(Money m) { m${'.add(m)'.repeat(3000)}; }\n`);
    copy.write('deep.rb', `X = ${deep('[', ']')}\ndef after_ruby; end\n`);
    copy.write('deep.php', `<?php\n$x = ${deep('[', ']')};\nfunction after_php() {}\n`);
    copy.write('broken.php', '<?php class { function ( { '.repeat(200));
    copy.write(
      'deep.ex',
      `defmodule Deep do\n  def x, do: ${deep('[', ']')}\n  def after_elixir, do: 1\nend\n`,
    );
    copy.write('broken.hs', 'module where data = = class instance ('.repeat(100));
    copy.write('empty.sh', '');
    // Calls named like Object properties, which the accessor table once took for accessors.
    copy.write(
      'object_words.rb',
      'class Words\n  constructor :x\n  toString :y\n  def after_words; end\nend\n',
    );
  });

  it('indexes what it can and keeps serving', () => {
    expect(suite.graph.roots[0]?.queries.status().files).toBe(12);
    for (const name of [
      'after_c',
      'chained',
      'after_ruby',
      'after_php',
      'Deep.after_elixir',
      'Words.after_words',
    ])
      expect(suite.graph.findSymbols(name)).toHaveLength(1);
    expect(suite.graph.roots[0]?.index.progress.phase).toBe('ready');
  });
});
