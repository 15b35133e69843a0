import { readFileSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CodeGraph } from '../src/graph/code-graph.js';
import { IgnoreRules } from '../src/graph/file-scan.js';
import { TreeWatcher } from '../src/graph/tree-watcher.js';
import { callersOf, copyFixture, type FixtureCopy, indexedGraph, quietLog, until } from './fixture-graph.js';

function callerNames(graph: CodeGraph, name: string): string[] {
  return graph
    .findSymbols(name)
    .flatMap((found) =>
      found.root.queries.callers(found.symbol.id).map((group) => group.caller.qualifiedName),
    );
}

function callsites(graph: CodeGraph, name: string): string[] {
  return graph
    .findSymbols(name)
    .flatMap((found) =>
      found.root.queries
        .callers(found.symbol.id)
        .flatMap((group) => group.callsites.map((site) => `${site.path}:${site.line}`)),
    );
}

for (const mode of ['events', 'polling'] as const) {
  describe(`the file watcher (${mode})`, () => {
    let copy: FixtureCopy;
    let graph: CodeGraph;
    beforeAll(async () => {
      copy = copyFixture('ts-shop');
      graph = await indexedGraph(copy, { watch: mode });
      expect(graph.roots[0]?.watcher?.mode).toBe(mode);
    });
    afterAll(async () => {
      await graph.close();
      copy.remove();
    });

    it('picks up an edit', async () => {
      copy.write(
        'src/checkout.ts',
        "import { Money } from './pricing/money';\nexport function twice(m: Money): Money {\n  return m.zero();\n}\n",
      );
      await until('twice to call Money.zero', () => callerNames(graph, 'Money.zero').includes('twice'));
      expect(graph.findSymbols('priceBasket')).toEqual([]);
    });

    it('picks up a new file, and a new folder with a file in it', async () => {
      copy.write(
        'src/report.ts',
        "import { Money } from './pricing';\nexport function report(m: Money) {\n  return m.add(m);\n}\n",
      );
      copy.write(
        'src/extra/deep/audit.ts',
        "import { Money } from '../../pricing';\nexport function audit(m: Money) {\n  return m.double();\n}\n",
      );
      await until('report to call Money.add', () => callerNames(graph, 'Money.add').includes('report'));
      await until('audit to call Money.double', () => callerNames(graph, 'Money.double').includes('audit'));
    });

    it('picks up a deletion', async () => {
      rmSync(path.join(copy.root, 'src/report.ts'));
      await until('report to be gone', () => graph.findSymbols('report').length === 0);
      expect(callerNames(graph, 'Money.add')).not.toContain('report');
    });

    it('picks up a rename, and re-resolves the files that import the renamed one', async () => {
      renameSync(path.join(copy.root, 'src/pricing/money.ts'), path.join(copy.root, 'src/pricing/cash.ts'));
      copy.write('src/pricing/index.ts', "export { Money } from './cash';\nexport * from './rate';\n");
      await until(
        'Money to live in cash.ts',
        () => graph.findSymbols('Money')[0]?.symbol.path === 'src/pricing/cash.ts',
      );
      // Files importing through index.ts find Money again; savings.ts calls it through a field.
      await until('the field calls to resolve again', () =>
        callsites(graph, 'Money.multiplyByRate').includes('src/lib/savings.ts:8'),
      );
    });

    it('re-resolves dependents when a definition moves within its file', async () => {
      const before = callsites(graph, 'Money.multiplyByRate').length;
      const source = readFileSync(path.join(copy.root, 'src/pricing/cash.ts'), 'utf8');
      copy.write('src/pricing/cash.ts', `// a new first line\n${source}`);
      await until(
        'Money.multiplyByRate to move to line 9',
        () => graph.findSymbols('Money.multiplyByRate')[0]?.symbol.startLine === 9,
      );
      expect(callsites(graph, 'Money.multiplyByRate')).toHaveLength(before);
    });

    it('picks up a .gitignore edit: what it no longer ignores is indexed', async () => {
      expect(graph.findSymbols('ignoredHelper')).toEqual([]);
      copy.write('.gitignore', 'dist/\n');
      await until(
        'the formerly ignored file to be indexed',
        () => graph.findSymbols('ignoredHelper').length === 1,
      );
      // Its folder is now watched like any other.
      copy.write('generated/output.ts', 'export function regeneratedHelper() { return 2; }\n');
      await until(
        'an edit in the formerly ignored folder',
        () => graph.findSymbols('regeneratedHelper').length === 1,
      );
    });

    it('indexes a burst of changes as a batch, not one run per file', async () => {
      const runs: number[] = [];
      const index = graph.roots[0]?.index;
      const stop = index?.onProgress((progress) => {
        if (progress.phase === 'ready') runs.push(Date.now());
      });
      for (let n = 0; n < 40; n++)
        copy.write(`src/burst/file${n}.ts`, `export function burst${n}() { return ${n}; }\n`);
      await until(
        'all 40 files',
        () => graph.findSymbols('burst39').length === 1 && graph.findSymbols('burst0').length === 1,
      );
      await until('the index to settle', () => graph.complete);
      stop?.();
      expect(runs.length).toBeGreaterThan(0);
      expect(runs.length).toBeLessThanOrEqual(3);
    });
  });
}

for (const mode of ['events', 'polling'] as const) {
  describe(`the file watcher (${mode}) and package.json`, () => {
    let copy: FixtureCopy;
    let graph: CodeGraph;
    beforeAll(async () => {
      copy = copyFixture('ts-package');
      graph = await indexedGraph(copy, { watch: mode, precise: false });
    });
    afterAll(async () => {
      await graph.close();
      copy.remove();
    });

    it('re-resolves imports of the package by name when package.json renames it', async () => {
      const convertCallers = () => callersOf(graph, 'convert').map((group) => group.caller);
      expect(convertCallers()).toEqual(['checkLedger']);
      const original = readFileSync(path.join(copy.root, 'package.json'), 'utf8');
      copy.write('package.json', original.replace('"@acme/ledger"', '"@acme/books"'));
      await until('the renamed package to leave convert uncalled', () => convertCallers().length === 0);
      copy.write('package.json', original);
      await until('the original name to resolve again', () => convertCallers().length === 1);
    });
  });
}

describe('the file watcher with one recursive watch (native on macOS and Windows, emulated here)', () => {
  it('reports new files in new folders, and nothing from ignored folders', async () => {
    const copy = copyFixture('ts-shop');
    const seen = new Set<string>();
    const watcher = new TreeWatcher({
      root: copy.root,
      rules: new IgnoreRules(copy.root),
      log: quietLog,
      recursive: true,
      onChanges: (paths) => {
        for (const changed of paths) seen.add(changed);
      },
    });
    try {
      await watcher.start();
      expect(watcher.mode).toBe('events');
      copy.write('generated/skipped.ts', 'export const skipped = 1;\n');
      copy.write('src/extra/deep/audit.ts', 'export const audit = 1;\n');
      await until('the new file to be reported', () => seen.has('src/extra/deep/audit.ts'));
      expect([...seen].filter((changed) => changed.startsWith('generated/'))).toEqual([]);
    } finally {
      watcher.close();
      copy.remove();
    }
  });
});
