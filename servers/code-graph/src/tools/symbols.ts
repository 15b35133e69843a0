import { budgetFields, cursorArg, maxTokensArg, requestedPage, ToolError } from '@toolmesh/core';
import { z } from 'zod';
import { SYMBOL_KINDS } from '../graph/facts.js';
import { defineTool, READ_ONLY } from './define.js';
import {
  fileArg,
  findOrExplain,
  indexFields,
  indexState,
  locatePath,
  location,
  symbolArg,
  symbolView,
  viewSymbol,
} from './symbol-views.js';

export const searchCode = defineTool({
  name: 'search_code',
  title: 'Search code symbols',
  description:
    'Ranked search over the symbols of the indexed roots: names split on camelCase and snake_case (so "money field" finds getMoneyField), qualified names, signatures and doc comments, with BM25, an exact-name boost and a boost for symbols much used elsewhere. For an exact name use code_symbol.',
  capability: 'read',
  input: z.object({
    query: z.string().min(1).max(500).describe('Words from a name, signature or doc comment, or a name.'),
    kind: z.enum(SYMBOL_KINDS).optional().describe('Only symbols of this kind.'),
    path: z.string().optional().describe('Only symbols under this file or folder.'),
    limit: z.number().int().min(1).max(200).default(20).describe('Most results to rank and return.'),
    maxTokens: maxTokensArg,
    cursor: cursorArg,
  }),
  output: z.object({
    query: z.string(),
    results: z.array(symbolView.extend({ score: z.number() })),
    ...indexFields,
    ...budgetFields,
  }),
  annotations: READ_ONLY,
  actions: ['read'],
  render: (output) =>
    [
      ...(output.note ? [output.note] : []),
      ...(output.results.length === 0 ? [`No symbol matches "${output.query}".`] : []),
      ...output.results.map((hit) => `${location(hit)}  ${hit.kind} ${hit.qualifiedName}  ${hit.signature}`),
      ...(output.truncated ? ['(more: call again with nextCursor)'] : []),
    ].join('\n'),
  async handle(args, { engine }) {
    if (!args.query.trim()) {
      throw new ToolError(
        'The query is empty: give words from a name, signature or doc comment.',
        'bad_arguments',
      );
    }
    const scope = args.path !== undefined ? locatePath(engine, args.path) : undefined;
    const hits = engine.roots
      .filter((root) => !scope || scope.root === root)
      .flatMap((root) =>
        root.queries
          .search(args.query, 300)
          .filter((hit) => !args.kind || hit.kind === args.kind)
          .filter(
            (hit) =>
              !scope?.relative || hit.path === scope.relative || hit.path.startsWith(`${scope.relative}/`),
          )
          .map((hit) => ({ ...viewSymbol(engine, { root, symbol: hit }), score: hit.score })),
      )
      .sort((a, b) => b.score - a.score)
      .slice(0, args.limit);
    const page = requestedPage(hits, args);
    const { items, ...budget } = page;
    return { query: args.query, results: items, ...indexState(engine), ...budget };
  },
});

export const codeSymbol = defineTool({
  name: 'code_symbol',
  title: 'Find a symbol by name',
  description:
    'Where a symbol is defined: an exact name (Money.multiplyByRate, or multiplyByRate) → file:line, kind, signature and doc comment. An ambiguous name lists every match.',
  capability: 'read',
  input: z.object({ name: symbolArg, file: fileArg, maxTokens: maxTokensArg, cursor: cursorArg }),
  output: z.object({
    name: z.string(),
    total: z.number().int().describe('How many symbols have this name.'),
    matches: z.array(symbolView),
    ...indexFields,
    ...budgetFields,
  }),
  annotations: READ_ONLY,
  actions: ['read'],
  render: (output) =>
    [
      ...(output.note ? [output.note] : []),
      `${output.total} symbol${output.total === 1 ? '' : 's'} named ${output.name}:`,
      ...output.matches.map(
        (match) =>
          `${location(match)}  ${match.kind} ${match.qualifiedName}  ${match.signature}${match.doc ? `\n    ${match.doc.split('\n')[0]}` : ''}`,
      ),
    ].join('\n'),
  async handle(args, { engine }) {
    const matches = findOrExplain(engine, args.name, args.file).map((found) => viewSymbol(engine, found));
    const { items, ...budget } = requestedPage(matches, args);
    return { name: args.name, total: matches.length, matches: items, ...indexState(engine), ...budget };
  },
});
