import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { connectInMemory } from '@toolmesh/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CodeGraph } from '../src/graph/code-graph.js';
import type { CheckedFile, CheckRequest, WorkerMessage } from '../src/graph/precise/checker-protocol.js';
import { CheckerSession } from '../src/graph/precise/checker-session.js';
import { createCodeGraphServer } from '../src/server.js';
import { copyFixture, type FixtureCopy, indexedGraph, quietLog, until } from './fixture-graph.js';

// Precise mode checks the fixture with the TypeScript compiler in a worker thread, which takes
// seconds on a busy machine; the hooks that wait for it get the time.
const PRECISE_TIMEOUT = 120_000;
const BIN = fileURLToPath(new URL('../dist/index.js', import.meta.url));
const run = promisify(execFile);

function only(graph: CodeGraph, name: string) {
  const found = graph.findSymbols(name);
  expect(found.map((entry) => entry.symbol.qualifiedName)).toEqual([name]);
  return found[0] as NonNullable<(typeof found)[number]>;
}

/** Every callsite of `name` as `file:line resolution`, in file order. */
function callsites(graph: CodeGraph, name: string): string[] {
  const { root, symbol } = only(graph, name);
  return root.queries
    .callers(symbol.id)
    .flatMap((group) => group.callsites.map((site) => `${site.path}:${site.line} ${site.resolution}`))
    .sort();
}

function callers(graph: CodeGraph, name: string): string[] {
  const { root, symbol } = only(graph, name);
  return root.queries.callers(symbol.id).map((group) => group.caller.qualifiedName);
}

function references(graph: CodeGraph, name: string): string[] {
  const db = graph.roots[0]?.index.store.db;
  return (
    db
      ?.prepare(
        `SELECT s.qualified_name AS source, e.resolution FROM edges e JOIN symbols s ON s.id = e.source_id
         JOIN symbols t ON t.id = e.target_id WHERE e.kind = 'REFERENCES' AND t.qualified_name = ? ORDER BY source`,
      )
      .all(name)
      .map((row) => {
        const { source, resolution } = row as { source: string; resolution: string };
        return `${source} ${resolution}`;
      }) ?? []
  );
}

async function preciseGraph(copy: FixtureCopy, options: Parameters<typeof indexedGraph>[1] = {}) {
  const graph = await indexedGraph(copy, options);
  await graph.preciseReady();
  return graph;
}

/** The ts-precise fixture's TypeScript and JavaScript files, sorted. */
const TS_PRECISE_FILES = [
  'src/catalog.ts',
  'src/checkout.ts',
  'src/index.ts',
  'src/money.ts',
  'src/report.js',
];

/** The callsites of Money.multiplyByRate the checker finds: inferred, chained, destructured, aliased, JSDoc. */
const MULTIPLY_BY_RATE_PRECISE = [
  'src/catalog.ts:14 field',
  'src/checkout.ts:11 checker',
  'src/checkout.ts:12 checker',
  'src/checkout.ts:13 checker',
  'src/checkout.ts:8 checker',
  'src/checkout.ts:9 checker',
  'src/report.js:8 checker',
];

describe('precise mode against the syntactic mode (ts-precise fixture)', () => {
  let preciseCopy: FixtureCopy;
  let syntacticCopy: FixtureCopy;
  let precise: CodeGraph;
  let syntactic: CodeGraph;
  beforeAll(async () => {
    preciseCopy = copyFixture('ts-precise');
    syntacticCopy = copyFixture('ts-precise');
    precise = await preciseGraph(preciseCopy);
    syntactic = await indexedGraph(syntacticCopy, { precise: false });
  }, PRECISE_TIMEOUT);
  afterAll(async () => {
    await precise.close();
    await syntactic.close();
    preciseCopy.remove();
    syntacticCopy.remove();
  });

  it('resolves calls through type-inferred receivers that the syntax leaves open (seed 000)', () => {
    // samplePrice = priceOf(…) with no declared return type; a chain on inferred returns; a
    // destructured result; a re-exported alias; a value alias; a JSDoc-typed JavaScript parameter.
    expect(callsites(precise, 'Money.multiplyByRate')).toEqual(MULTIPLY_BY_RATE_PRECISE);
    expect(callers(precise, 'Money.multiplyByRate')).toEqual(['LineItem.total', 'checkout', 'describe']);
    expect(callsites(syntactic, 'Money.multiplyByRate')).toEqual(['src/catalog.ts:14 field']);
  });

  it('resolves calls on callback parameters and through interfaces', () => {
    expect(callsites(precise, 'LineItem.total')).toEqual([
      'src/catalog.ts:39 checker',
      'src/checkout.ts:17 checker',
    ]);
    expect(callsites(precise, 'Priced.total')).toEqual([
      'src/checkout.ts:22 checker',
      'src/report.js:17 checker',
    ]);
    expect(callsites(precise, 'Money.add')).toEqual([
      'src/catalog.ts:39 checker',
      'src/checkout.ts:22 checker',
      'src/checkout.ts:9 checker',
    ]);
    for (const name of ['LineItem.total', 'Priced.total', 'Money.add'])
      expect(callsites(syntactic, name)).toEqual([]);
  });

  it('fixes targets the syntax got wrong: overloads and parameters', () => {
    // make('gift') resolves to the overload returning Gift; the syntax took the first overload's LineItem.
    expect(callsites(syntactic, 'LineItem.label')).toEqual(['src/checkout.ts:14 returned']);
    expect(callsites(precise, 'LineItem.label')).toEqual([]);
    expect(callsites(precise, 'Gift.label')).toEqual(['src/checkout.ts:14 checker']);
    // applyAll calls its parameter `format`, not the only top-level `format` in the root.
    expect(callsites(syntactic, 'format')).toEqual(['src/checkout.ts:27 unique-name']);
    expect(callsites(precise, 'format')).toEqual([]);
  });

  it('binds a call to the callee symbol, and a local holding a function to the function it holds', () => {
    // computePrice is an exported constant: calls of it are its callsites, as find-references has them.
    expect(callsites(precise, 'computePrice')).toEqual(['src/checkout.ts:13 import']);
    // `const lookup = priceOf; lookup(11)`: the local is no symbol, the signature is priceOf's.
    expect(callsites(precise, 'priceOf')).toContain('src/checkout.ts:32 checker');
    expect(callsites(syntactic, 'priceOf')).not.toContain('src/checkout.ts:32 checker');
    expect(callsites(precise, 'priceOf')).toHaveLength(callsites(syntactic, 'priceOf').length + 1);
  });

  it('adds callsites the syntax does not see, and keeps syntactic tags where the checker agrees', () => {
    // formatterFor()(samplePrice): a call of what a call returns.
    expect(callsites(precise, 'describe')).toEqual(['src/checkout.ts:16 checker']);
    expect(callsites(syntactic, 'describe')).toEqual([]);
    expect(callsites(precise, 'summarize')).toEqual(['src/checkout.ts:10 import']);
  });

  it('follows JSDoc types in JavaScript to REFERENCES edges', () => {
    expect(references(precise, 'Money')).toContain('describe checker');
    expect(references(precise, 'Priced')).toContain('format checker');
    expect(references(syntactic, 'Priced')).not.toContain('format checker');
  });

  it('index_status reports the precise phase and the edges each resolution produced', async () => {
    const status = async (graph: CodeGraph) => {
      const client = await connectInMemory(createCodeGraphServer({ graph, log: quietLog }));
      try {
        const result = (await client.call('index_status')) as CallToolResult;
        expect(result.isError).toBeFalsy();
        return (result.structuredContent as { roots: Record<string, never>[] }).roots[0] as Record<
          string,
          unknown
        >;
      } finally {
        await client.close();
      }
    };
    const upgraded = await status(precise);
    expect(upgraded.precise).toMatchObject({
      state: 'ready',
      progress: { done: 5, total: 5 },
      lastRun: { files: 5, partitions: 1, workers: 1 },
    });
    const byResolution = upgraded.edgesByResolution as Record<string, Record<string, number>>;
    expect(byResolution.checker?.CALLS).toBe(21);
    expect(byResolution.external?.CALLS).toBe(6);
    const plain = await status(syntactic);
    expect(plain.precise).toEqual({
      state: 'off',
      reason: 'turned off (--no-precise)',
      progress: { done: 0, total: 0 },
    });
    expect((plain.edgesByResolution as Record<string, unknown>).checker).toBeUndefined();
    expect(upgraded.unresolvedCalls).toBe(1);
    expect(plain.unresolvedCalls).toBe(24);
  });
});

describe('precise mode follows edits (watcher on)', () => {
  let copy: FixtureCopy;
  let graph: CodeGraph;
  beforeAll(async () => {
    copy = copyFixture('ts-precise');
    graph = await preciseGraph(copy, { watch: 'events' });
  }, PRECISE_TIMEOUT);
  afterAll(async () => {
    await graph.close();
    copy.remove();
  });

  it(
    'checks an edited file again, and only that file when nothing depends on it',
    async () => {
      const source = readFileSync(path.join(copy.root, 'src/checkout.ts'), 'utf8');
      copy.write(
        'src/checkout.ts',
        `${source}\nexport function again() {\n  return priceOf(9).multiplyByRate(9);\n}\n`,
      );
      await until(
        'the new inferred call to be precise',
        () => callsites(graph, 'Money.multiplyByRate').includes('src/checkout.ts:36 checker'),
        PRECISE_TIMEOUT,
      );
      await graph.preciseReady();
      expect(callsites(graph, 'Money.multiplyByRate')).toEqual(
        [...MULTIPLY_BY_RATE_PRECISE, 'src/checkout.ts:36 checker'].sort(),
      );
      expect(graph.roots[0]?.precise?.progress.lastRun?.files).toBe(1);
    },
    PRECISE_TIMEOUT,
  );

  it(
    're-checks the importers of a file whose inferred return type changed',
    async () => {
      expect(callsites(graph, 'Money.label')).toContain('src/checkout.ts:15 checker');
      const source = readFileSync(path.join(copy.root, 'src/money.ts'), 'utf8');
      copy.write(
        'src/money.ts',
        `${source.replace('export function bonusOf(cents: number) {\n  return new Money(cents);', 'export function bonusOf(cents: number) {\n  return new Voucher(cents);')}\nexport class Voucher {\n  constructor(readonly cents: number) {}\n\n  label(): string {\n    return 'voucher';\n  }\n}\n`,
      );
      // checkout.ts did not change; bonusOf(7).label() now runs Voucher.label.
      await until(
        'Voucher.label to be called from checkout',
        () =>
          graph.findSymbols('Voucher.label').length === 1 &&
          callsites(graph, 'Voucher.label').includes('src/checkout.ts:15 checker'),
        PRECISE_TIMEOUT,
      );
      await graph.preciseReady();
      expect(callsites(graph, 'Money.label')).not.toContain('src/checkout.ts:15 checker');
    },
    PRECISE_TIMEOUT,
  );
});

describe('the checker worker of an idle root (watcher on)', () => {
  let copy: FixtureCopy;
  let graph: CodeGraph;
  beforeAll(async () => {
    copy = copyFixture('ts-precise');
    graph = await preciseGraph(copy, { watch: 'events', checkerIdleMs: 50 });
  }, PRECISE_TIMEOUT);
  afterAll(async () => {
    await graph.close();
    copy.remove();
  });

  it(
    'ends once idle, and a later edit is checked by a new one that ends again',
    async () => {
      const precise = graph.roots[0]?.precise;
      await until('the idle checker worker to end', () => precise?.checkerRunning === false, PRECISE_TIMEOUT);
      const source = readFileSync(path.join(copy.root, 'src/checkout.ts'), 'utf8');
      copy.write(
        'src/checkout.ts',
        `${source}\nexport function afterIdle() {\n  return priceOf(4).multiplyByRate(4);\n}\n`,
      );
      await until(
        'the call added after the worker ended to be precise',
        () => callsites(graph, 'Money.multiplyByRate').includes('src/checkout.ts:36 checker'),
        PRECISE_TIMEOUT,
      );
      await graph.preciseReady();
      expect(callsites(graph, 'Money.multiplyByRate')).toEqual(
        [...MULTIPLY_BY_RATE_PRECISE, 'src/checkout.ts:36 checker'].sort(),
      );
      await until(
        'the checker worker to end again',
        () => precise?.checkerRunning === false,
        PRECISE_TIMEOUT,
      );
    },
    PRECISE_TIMEOUT,
  );
});

describe('programs built ahead of the first check', () => {
  it('reads again a file whose content changed after the programs were built', () => {
    const copy = copyFixture('ts-precise');
    try {
      const files = TS_PRECISE_FILES;
      const hashOf = (file: string) =>
        createHash('sha1')
          .update(readFileSync(path.join(copy.root, file)))
          .digest('hex');
      const session = new CheckerSession(copy.root);
      const answers: WorkerMessage[] = [];
      session.prepare({ type: 'prepare', files }, (message) => answers.push(message));
      expect(answers).toEqual([{ type: 'done', partitions: 1, checked: 0 }]);
      const source = readFileSync(path.join(copy.root, 'src/checkout.ts'), 'utf8');
      copy.write(
        'src/checkout.ts',
        `${source}\nexport function later() {\n  return priceOf(9).multiplyByRate(9);\n}\n`,
      );
      const checked: CheckedFile[] = [];
      session.run(
        {
          type: 'check',
          files,
          targets: ['src/checkout.ts'],
          changed: [],
          hashes: Object.fromEntries(files.map((file) => [file, hashOf(file)])),
          refresh: false,
          keepPrograms: false,
          storedNames: [],
        },
        (message) => {
          if (message.type === 'files') checked.push(...message.files);
        },
      );
      expect(checked.map((file) => file.hash)).toEqual([hashOf('src/checkout.ts')]);
      expect(
        checked[0]?.calls.filter((call) => call.name === 'multiplyByRate').map((call) => call.line),
      ).toContain(36);
    } finally {
      copy.remove();
    }
  });
});

describe('a large first upgrade', () => {
  it(
    'is split between two workers when two are allowed, and every file is upgraded once',
    async () => {
      const copy = copyFixture('ts-precise');
      for (let n = 0; n < 100; n++) {
        copy.write(
          `src/generated/price${n}.ts`,
          `import { priceOf } from '../money';\n\nexport function price${n}() {\n  return priceOf(${n}).multiplyByRate(2);\n}\n`,
        );
      }
      const graph = await preciseGraph(copy, { preciseWorkers: 2 });
      try {
        expect(graph.roots[0]?.precise?.progress).toMatchObject({
          state: 'ready',
          done: 105,
          total: 105,
          lastRun: { files: 105, partitions: 1, workers: 2 },
        });
        const generated = Array.from({ length: 100 }, (_, n) => `src/generated/price${n}.ts:4 checker`);
        expect(callsites(graph, 'Money.multiplyByRate')).toEqual(
          [...MULTIPLY_BY_RATE_PRECISE, ...generated].sort(),
        );
      } finally {
        await graph.close();
        copy.remove();
      }
    },
    PRECISE_TIMEOUT,
  );
});

describe('a check split between workers', () => {
  /** Two import clusters, a script declaring a global and a module augmenting another's class. */
  function writeClusters(copy: FixtureCopy): string[] {
    const written: string[] = [];
    const write = (file: string, text: string) => {
      copy.write(file, text);
      written.push(file);
    };
    for (const cluster of ['north', 'south']) {
      write(
        `src/${cluster}/route.ts`,
        `export class Route {\n  next(): Route {\n    return this;\n  }\n}\nexport function start() {\n  return new Route();\n}\n`,
      );
      for (let n = 0; n < 4; n++)
        write(
          `src/${cluster}/leg${n}.ts`,
          `import { start } from './route';\n\nexport function leg${n}() {\n  return start().next().next();\n}\n`,
        );
    }
    // Both lean on the south cluster, so a split puts them with it, away from north/uses.ts.
    write(
      'src/south/legacy.ts',
      '/// <reference path="./leg0.ts" />\nfunction legacyRoute() {\n  return 1;\n}\n',
    );
    write(
      'src/south/detour.ts',
      `import { Route } from '../north/route';\nimport './leg1';\n\ndeclare module '../north/route' {\n  interface Route {\n    detour(): Route;\n  }\n}\n`,
    );
    write(
      'src/north/uses.ts',
      `import { start } from './route';\n\nexport function uses() {\n  legacyRoute();\n  return start().detour();\n}\n`,
    );
    return written;
  }

  function check(session: CheckerSession, files: string[], extra: Partial<CheckRequest>): CheckedFile[] {
    const checked: CheckedFile[] = [];
    session.run(
      {
        type: 'check',
        files,
        targets: files,
        changed: [],
        hashes: {},
        refresh: true,
        keepPrograms: false,
        storedNames: [],
        ...extra,
      },
      (message) => {
        if (message.type === 'files') checked.push(...message.files);
      },
    );
    return checked.sort((a, b) => a.path.localeCompare(b.path));
  }

  it(
    'checks every file once, each in a program holding its whole closure, with the answers of one program',
    () => {
      const copy = copyFixture('ts-precise');
      try {
        const files = writeClusters(copy).sort();
        const whole = check(new CheckerSession(copy.root), files, {});
        expect(whole.map((file) => file.path)).toEqual(files);
        const uses = whole.find((file) => file.path === 'src/north/uses.ts');
        expect(uses?.calls.map((call) => [call.name, call.outcome.kind])).toEqual(
          expect.arrayContaining([
            ['legacyRoute', 'symbols'],
            ['detour', 'symbols'],
          ]),
        );
        // Alone, each worker checks its group; with shared claims, the first one done also takes the
        // other's files its program holds, and the second checks only what is left.
        const alone = [0, 1].map((index) =>
          check(new CheckerSession(copy.root), files, { share: { index, count: 2 } }),
        );
        expect(alone.every((group) => group.length > 0)).toBe(true);
        expect(alone.flat().sort((a, b) => a.path.localeCompare(b.path))).toEqual(whole);
        const claims = new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT * files.length);
        const claimed = [0, 1].map((index) =>
          check(new CheckerSession(copy.root), files, { share: { index, count: 2 }, claims }),
        );
        expect(claimed.flat().sort((a, b) => a.path.localeCompare(b.path))).toEqual(whole);
        expect(claimed[0]?.length).toBeGreaterThanOrEqual(alone[0]?.length ?? 0);
      } finally {
        copy.remove();
      }
    },
    PRECISE_TIMEOUT,
  );
});

describe('a checker replaced as the heap grows', () => {
  it(
    'gives the answers of one checker when a fresh one takes over before every file',
    () => {
      const copy = copyFixture('ts-precise');
      try {
        const files = TS_PRECISE_FILES;
        const run = (session: CheckerSession) => {
          const checked: CheckedFile[] = [];
          session.run(
            {
              type: 'check',
              files,
              targets: files,
              changed: [],
              hashes: {},
              refresh: true,
              keepPrograms: false,
              storedNames: [],
            },
            (message) => {
              if (message.type === 'files') checked.push(...message.files);
            },
          );
          return checked.sort((a, b) => a.path.localeCompare(b.path));
        };
        const one = run(new CheckerSession(copy.root));
        expect(one.map((file) => file.path)).toEqual(files);
        expect(
          one.flatMap((file) => file.calls).filter((call) => call.outcome.kind === 'symbols').length,
        ).toBeGreaterThan(5);
        // Any growth at all replaces the checker, so each file after the first gets a fresh one.
        expect(run(new CheckerSession(copy.root, { checkerGrowthBytes: 0 }))).toEqual(one);
      } finally {
        copy.remove();
      }
    },
    PRECISE_TIMEOUT,
  );
});

describe('a worker over its heap budget', () => {
  it(
    'checks no program after the one that took it over, and lists the files left for a fresh worker',
    () => {
      const copy = copyFixture('ts-precise');
      try {
        copy.write('extra/tsconfig.json', '{ "compilerOptions": { "strict": true }, "include": ["src"] }\n');
        copy.write(
          'extra/src/uses.ts',
          `import { priceOf } from '../../src/money';\n\nexport function extra() {\n  return priceOf(1).multiplyByRate(3);\n}\n`,
        );
        const files = [...TS_PRECISE_FILES, 'extra/src/uses.ts'].sort();
        const check = (session: CheckerSession, targets: string[]) => {
          const checked: string[] = [];
          let done: WorkerMessage | undefined;
          session.run(
            {
              type: 'check',
              files,
              targets,
              changed: [],
              hashes: {},
              refresh: true,
              keepPrograms: false,
              storedNames: [],
              heapBudgetBytes: 0,
            },
            (message) => {
              if (message.type === 'files') checked.push(...message.files.map((file) => file.path));
              if (message.type === 'done') done = message;
            },
          );
          return { checked, done };
        };
        const first = check(new CheckerSession(copy.root), files);
        expect(first.done).toMatchObject({ type: 'done', partitions: 2 });
        const left = first.done?.type === 'done' ? (first.done.left ?? []) : [];
        expect(left.length).toBeGreaterThan(0);
        expect([...first.checked, ...left].sort()).toEqual(files);
        // The first program of a worker is always checked, so each fresh one gets further.
        const second = check(new CheckerSession(copy.root), left);
        expect(second.checked.sort()).toEqual([...left].sort());
        expect(second.done).not.toHaveProperty('left');
      } finally {
        copy.remove();
      }
    },
    PRECISE_TIMEOUT,
  );
});

describe('calls on what code outside the root returns', () => {
  it(
    'asks the checker when the member is named like a stored symbol, and answers external otherwise',
    async () => {
      const copy = copyFixture('ts-precise');
      copy.write('node_modules/boxes/package.json', '{ "name": "boxes", "types": "index.d.ts" }\n');
      copy.write(
        'node_modules/boxes/index.d.ts',
        'export declare function box<T>(value: T): { unwrap(): T; seal(): void };\n',
      );
      copy.write(
        'src/boxed.ts',
        [
          "import { box } from 'boxes';",
          "import { priceOf } from './money';",
          '',
          'export function boxed() {',
          '  box(priceOf(3)).unwrap().multiplyByRate(2);',
          '  box(1).seal();',
          '}',
          '',
        ].join('\n'),
      );
      const graph = await preciseGraph(copy);
      try {
        // An outside generic function hands back the root's own Money: the checker binds the call.
        expect(callsites(graph, 'Money.multiplyByRate')).toContain('src/boxed.ts:5 checker');
        const boxed = only(graph, 'boxed');
        expect(
          boxed.root.queries
            .callees(boxed.symbol.id)
            .map(
              (group) =>
                `${group.callee?.qualifiedName ?? `?${group.text}`} ${group.callsites[0]?.resolution}`,
            ),
        ).toEqual([
          'Money.multiplyByRate checker',
          '?box().unwrap external',
          '?box external',
          'priceOf import',
          '?box().seal external',
        ]);
      } finally {
        await graph.close();
        copy.remove();
      }
    },
    PRECISE_TIMEOUT,
  );
});

describe('members of what a call returns, read from declared return types', () => {
  it(
    'follows one signature and `this`, and asks the checker for overloads, type parameters, casts and narrowed names',
    async () => {
      const copy = copyFixture('ts-precise');
      copy.write(
        'src/pets.ts',
        [
          'export class Pet {',
          '  speak(): string { return "?"; }',
          '  groomed(): this { return this; }',
          '}',
          'export class Cat extends Pet { override speak(): string { return "meow"; } }',
          'export class Dog extends Pet {',
          '  override speak(): string { return "woof"; }',
          '  fetch(): void {}',
          '}',
          'export function adopt(kind: "cat"): Cat;',
          'export function adopt(kind: "dog"): Dog;',
          'export function adopt(kind: string): Pet { return kind === "cat" ? new Cat() : new Dog(); }',
          'export class Puppy extends Dog { override speak(): string { return "yip"; } }',
          'export function kennel(): Dog { return new Dog(); }',
          'export function same<T>(value: T): T { return value; }',
          '',
          'export function walk() {',
          '  const rex = kennel();',
          '  rex.groomed().fetch();',
          '  const tom = adopt("cat");',
          '  tom.speak();',
          '  const kept = same(new Cat());',
          '  kept.speak();',
          '  const loose = (kennel as unknown as () => Cat)();',
          '  loose.speak();',
          '  const pup = kennel();',
          '  if (pup instanceof Puppy) pup.speak();',
          '}',
          '',
        ].join('\n'),
      );
      const graph = await preciseGraph(copy);
      try {
        const walk = only(graph, 'walk');
        expect(
          walk.root.queries
            .callees(walk.symbol.id)
            .flatMap((group) => group.callsites.map((site) => `${site.line} ${group.callee?.qualifiedName}`))
            .sort(),
        ).toEqual([
          '18 kennel',
          '19 Dog.fetch',
          '19 Pet.groomed',
          '20 adopt',
          '21 Cat.speak',
          '22 Cat',
          '22 same',
          '23 Cat.speak',
          '24 kennel',
          '25 Cat.speak',
          '26 kennel',
          '27 Puppy.speak',
        ]);
      } finally {
        await graph.close();
        copy.remove();
      }
    },
    PRECISE_TIMEOUT,
  );
});

describe('where precise mode applies, and turning it off', () => {
  it('is off without a tsconfig.json, jsconfig.json or package.json, and the syntactic answers stand', async () => {
    const copy = copyFixture('ts-shop');
    const graph = await preciseGraph(copy);
    try {
      expect(graph.roots[0]?.precise?.progress).toMatchObject({
        state: 'off',
        reason: 'no tsconfig.json, jsconfig.json or package.json in the root or above it',
      });
      expect(callsites(graph, 'Money.multiplyByRate')).toHaveLength(6);
    } finally {
      await graph.close();
      copy.remove();
    }
  });

  it(
    'checks a package.json project without a tsconfig.json as one inferred program',
    async () => {
      const copy = copyFixture('ts-precise');
      rmSync(path.join(copy.root, 'tsconfig.json'));
      copy.write('package.json', '{ "name": "shop", "type": "module" }\n');
      const graph = await preciseGraph(copy);
      try {
        expect(graph.roots[0]?.precise?.progress.lastRun).toMatchObject({ files: 5, partitions: 1 });
        expect(callsites(graph, 'Money.multiplyByRate')).toEqual(MULTIPLY_BY_RATE_PRECISE);
      } finally {
        await graph.close();
        copy.remove();
      }
    },
    PRECISE_TIMEOUT,
  );

  it(
    'keeps an upgrade across restarts, and turning the mode off restores the syntactic edges',
    async () => {
      const copy = copyFixture('ts-precise');
      try {
        const first = await preciseGraph(copy);
        expect(callsites(first, 'Money.multiplyByRate')).toEqual(MULTIPLY_BY_RATE_PRECISE);
        await first.close();
        // Nothing changed: the stored upgrade is used as it is, without running the checker.
        const again = await preciseGraph(copy);
        expect(again.roots[0]?.precise?.progress).toMatchObject({ state: 'ready' });
        expect(again.roots[0]?.precise?.progress.lastRun).toBeUndefined();
        expect(callsites(again, 'Money.multiplyByRate')).toEqual(MULTIPLY_BY_RATE_PRECISE);
        await again.close();
        const off = await indexedGraph(copy, { precise: false });
        expect(callsites(off, 'Money.multiplyByRate')).toEqual(['src/catalog.ts:14 field']);
        expect(callsites(off, 'LineItem.label')).toEqual(['src/checkout.ts:14 returned']);
        await off.close();
        const on = await preciseGraph(copy);
        expect(on.roots[0]?.precise?.progress.lastRun?.files).toBe(5);
        expect(callsites(on, 'Money.multiplyByRate')).toEqual(MULTIPLY_BY_RATE_PRECISE);
        await on.close();
      } finally {
        copy.remove();
      }
    },
    PRECISE_TIMEOUT,
  );

  it(
    'the CLI answers precisely by default, and syntactically with --no-precise',
    async () => {
      const copy = copyFixture('ts-precise');
      const env = { ...process.env, TOOLMESH_DATA_DIR: copy.dataDir };
      const callersOf = async (...flags: string[]) => {
        const { stdout } = await run(
          process.execPath,
          [BIN, 'callers', 'Money.multiplyByRate', '--root', copy.root, '--json', ...flags],
          { env },
        );
        return JSON.parse(stdout) as { callerCount: number; callsiteCount: number };
      };
      try {
        expect(await callersOf()).toMatchObject({ callerCount: 3, callsiteCount: 7 });
        expect(await callersOf('--no-precise')).toMatchObject({ callerCount: 1, callsiteCount: 1 });
      } finally {
        copy.remove();
      }
    },
    PRECISE_TIMEOUT,
  );
});
