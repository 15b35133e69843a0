import { budgetFields, cursorArg, maxTokensArg, requestedPage } from '@toolmesh/core';
import { z } from 'zod';
import type { CodeGraph, FoundSymbol } from '../graph/code-graph.js';
import { EDGE_KINDS, SYMBOL_KINDS } from '../graph/facts.js';
import {
  DEFAULT_IMPACT_DEPTH,
  type ImpactedSymbol,
  type ImpactGroup,
  impactOf,
  MAX_IMPACT_DEPTH,
  MAX_IMPACTED,
} from '../graph/impact.js';
import { defineTool, READ_ONLY } from './define.js';
import {
  fileArg,
  findOne,
  indexFields,
  indexState,
  location,
  symbolArg,
  symbolView,
  viewSymbol,
} from './symbol-views.js';

const impactedView = z.object({
  qualifiedName: z.string(),
  kind: z.enum(SYMBOL_KINDS),
  line: z.number().int(),
  distance: z.number().int().describe('Edges from the target on the shortest path found.'),
  edge: z.enum(EDGE_KINDS).describe('The last edge of that path, read `from edge to`.'),
  from: z.string(),
  to: z.string(),
  at: z
    .number()
    .int()
    .describe("The edge's line in from's file: a callsite, type use, import or declaration."),
});

const fileView = z.object({ file: z.string(), symbols: z.array(impactedView) });

function viewImpacted(item: ImpactedSymbol): z.infer<typeof impactedView> {
  return {
    qualifiedName: item.symbol.qualifiedName,
    kind: item.symbol.kind,
    line: item.symbol.startLine,
    distance: item.distance,
    edge: item.edge,
    from: item.from.qualifiedName,
    to: item.to.qualifiedName,
    at: item.line,
  };
}

function viewGroup(engine: CodeGraph, found: FoundSymbol, group: ImpactGroup) {
  return {
    test: group.test,
    file: engine.displayPath(found.root, group.path),
    symbols: group.symbols.map(viewImpacted),
  };
}

const renderFile = (entry: z.infer<typeof fileView>) => [
  entry.file,
  ...entry.symbols.map(
    (item) =>
      `  ${item.distance}  ${item.kind} ${item.qualifiedName}:${item.line}  (${item.from} ${item.edge} ${item.to}, line ${item.at})`,
  ),
];

export const codeImpact = defineTool({
  name: 'code_impact',
  title: 'What a change to a symbol affects',
  description: `The transitive blast radius of a symbol: everything that calls it, uses its type, extends or implements it, overrides it, or calls the base method it overrides (calls that may dispatch to it), and for exported variables and constants the files importing them — followed to a depth (default ${DEFAULT_IMPACT_DEPTH}, at most ${MAX_IMPACT_DEPTH}). Grouped by file, nearest first; each symbol with its distance and the edge that reached it. Test files (x.test.ts, x_test.go, test_x.py, tests/ or spec/ folders…) that reach the symbol within the depth are listed apart under tests. Only resolved edges are followed: index_status tells how many calls are unresolved.`,
  capability: 'read',
  input: z.object({
    symbol: symbolArg,
    file: fileArg,
    depth: z
      .number()
      .int()
      .min(1)
      .max(MAX_IMPACT_DEPTH)
      .default(DEFAULT_IMPACT_DEPTH)
      .describe('How many edges to follow from the symbol.'),
    maxTokens: maxTokensArg,
    cursor: cursorArg,
  }),
  output: z.object({
    symbol: symbolView,
    depth: z.number().int(),
    affectedSymbols: z.number().int().describe('Symbols reached outside test files.'),
    affectedFiles: z.number().int(),
    testSymbols: z.number().int().describe('Symbols reached in test files.'),
    testFiles: z.number().int(),
    limitReached: z
      .boolean()
      .describe(`True when the walk stopped widening at ${MAX_IMPACTED} symbols: ask for a smaller depth.`),
    files: z.array(fileView).describe('Affected files outside tests, nearest first.'),
    tests: z.array(fileView).describe('Test files that reach the symbol, nearest first.'),
    ...indexFields,
    ...budgetFields,
  }),
  annotations: READ_ONLY,
  actions: ['read'],
  render: (output) =>
    [
      ...(output.note ? [output.note] : []),
      `${output.symbol.qualifiedName} (${location(output.symbol)}), depth ${output.depth}: ${output.affectedSymbols} symbol${output.affectedSymbols === 1 ? '' : 's'} in ${output.affectedFiles} file${output.affectedFiles === 1 ? '' : 's'}, ${output.testSymbols} in ${output.testFiles} test file${output.testFiles === 1 ? '' : 's'}${output.limitReached ? ` (stopped at ${MAX_IMPACTED} symbols)` : ''}`,
      ...output.files.flatMap(renderFile),
      ...(output.tests.length > 0 ? ['tests:', ...output.tests.flatMap(renderFile)] : []),
      ...(output.truncated ? ['(more: call again with nextCursor)'] : []),
    ].join('\n'),
  async handle(args, { engine }) {
    const target = findOne(engine, args.symbol, args.file);
    const impact = impactOf(target.root.index.store, target.root.queries, target.symbol, args.depth);
    const groups = impact.groups.map((group) => viewGroup(engine, target, group));
    const { items, ...budget } = requestedPage(groups, args);
    const strip = ({ test: _test, ...entry }: (typeof groups)[number]) => entry;
    return {
      symbol: viewSymbol(engine, target),
      depth: args.depth,
      affectedSymbols: impact.affectedSymbols,
      affectedFiles: groups.filter((group) => !group.test).length,
      testSymbols: impact.testSymbols,
      testFiles: groups.filter((group) => group.test).length,
      limitReached: impact.limitReached,
      files: items.filter((group) => !group.test).map(strip),
      tests: items.filter((group) => group.test).map(strip),
      ...indexState(engine),
      ...budget,
    };
  },
});
