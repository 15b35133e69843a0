import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { calleesOf, callersOf, edgesOf, indexedFixtureSuite } from './fixture-graph.js';

// A package that imports itself by its package.json name and `#` imports, in the syntactic mode:
// `@acme/ledger` maps to dist/ (mapped back to src/ by tsconfig's outDir and rootDir), and the
// nested `acme-tools` maps to its sources through a custom condition.
describe('a package importing itself by name', () => {
  const suite = indexedFixtureSuite('ts-package', undefined, { precise: false });

  it('resolves the package name, its subpaths and subpath patterns through exports, dist/ back to src/', () => {
    expect(callersOf(suite.graph, 'money', 'src/money.ts')).toEqual([
      { caller: 'checkLedger', lines: ['tests/ledger.test.ts:7', 'tests/ledger.test.ts:8'] },
    ]);
    expect(callersOf(suite.graph, 'convert')).toEqual([
      { caller: 'checkLedger', lines: ['tests/ledger.test.ts:9'] },
    ]);
    expect(calleesOf(suite.graph, 'checkLedger')).toEqual([
      'money import',
      '?leftpad external',
      '?String unresolved',
      'convert import',
    ]);
    expect(edgesOf(suite.graph, 'IMPORTS')).toEqual([
      'src/index.ts -> src/money.ts',
      'src/index.ts -> src/rates/euro.ts',
      'src/money.ts -> src/internal/round.ts',
      'src/rates/euro.ts -> src/money.ts',
      'tests/ledger.test.ts -> ?',
      'tests/ledger.test.ts -> src/index.ts',
      'tests/ledger.test.ts -> src/money.ts',
      'tests/ledger.test.ts -> src/rates/euro.ts',
      'tools/cli.ts -> ?',
      'tools/cli.ts -> tools/lib/main.ts',
    ]);
  });

  it('resolves `#` imports through the imports field', () => {
    expect(callersOf(suite.graph, 'round')).toEqual([
      { caller: 'Money.add', lines: ['src/money.ts:7'] },
      { caller: 'money', lines: ['src/money.ts:12'] },
    ]);
  });

  it('uses the nearest package.json only: a nested package reaches its own sources, not its parent by name', () => {
    expect(callersOf(suite.graph, 'runTool')).toEqual([{ caller: 'cli', lines: ['tools/cli.ts:6'] }]);
    expect(calleesOf(suite.graph, 'cli')).toEqual(['?money external', 'runTool import']);
  });

  it('resolves again when package.json changes the name', async () => {
    const manifest = path.join(suite.copy.root, 'package.json');
    const original = readFileSync(manifest, 'utf8');
    const index = suite.graph.roots[0]?.index;
    suite.copy.write('package.json', original.replace('"@acme/ledger"', '"@acme/books"'));
    await index?.update(['package.json']);
    expect(callersOf(suite.graph, 'convert')).toEqual([]);
    expect(calleesOf(suite.graph, 'checkLedger')).toContain('?money external');
    suite.copy.write('package.json', original);
    await index?.update(['package.json']);
    expect(callersOf(suite.graph, 'convert')).toEqual([
      { caller: 'checkLedger', lines: ['tests/ledger.test.ts:9'] },
    ]);
  });
});
