import { budgetFields, maxTokensArg, requestKey, ToolError, takeWithinBudget } from '@toolmesh/core';
import { z } from 'zod';
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

const LEVELS = ['signature', 'body', 'dependencies'] as const;

export const readSymbol = defineTool({
  name: 'read_symbol',
  title: 'Read a symbol',
  description:
    "A symbol's source at one of three levels: signature (with its doc comment), body (the whole definition, default), or dependencies (the body plus the signatures of what it calls, references and extends). Cheaper than reading the file.",
  capability: 'read',
  input: z.object({
    symbol: symbolArg,
    file: fileArg,
    level: z.enum(LEVELS).default('body'),
    maxTokens: maxTokensArg,
  }),
  output: z.object({
    symbol: symbolView,
    level: z.enum(LEVELS),
    source: z.string(),
    dependencies: z.array(z.object({ relation: z.string(), symbol: symbolView })).optional(),
    ...indexFields,
    ...budgetFields,
  }),
  annotations: READ_ONLY,
  actions: ['read'],
  render: (output) =>
    [
      ...(output.note ? [output.note] : []),
      `${output.symbol.kind} ${output.symbol.qualifiedName} at ${location(output.symbol)}`,
      output.source,
      ...(output.dependencies ?? []).map(
        (dependency) =>
          `-- ${dependency.relation} ${dependency.symbol.qualifiedName} (${location(dependency.symbol)}): ${dependency.symbol.signature}`,
      ),
    ].join('\n'),
  async handle(args, { engine }) {
    const found = findOne(engine, args.symbol, args.file);
    const symbol = viewSymbol(engine, found);
    let source: string;
    if (args.level === 'signature') {
      source = symbol.doc ? `${symbol.doc}\n${symbol.signature}` : symbol.signature;
    } else {
      try {
        source = await engine.sourceOf(found);
      } catch {
        throw new ToolError(
          `${symbol.file} can no longer be read: it changed since it was indexed. Call reindex, then retry.`,
          'not_found',
        );
      }
    }
    const dependencies =
      args.level === 'dependencies'
        ? found.root.queries.dependencies(found.symbol.id).map((dependency) => ({
            relation: dependency.relation,
            symbol: viewSymbol(engine, { root: found.root, symbol: dependency.symbol }),
          }))
        : [];
    const sourceBytes = Buffer.byteLength(source) + Buffer.byteLength(JSON.stringify(symbol));
    if (sourceBytes > args.maxTokens) {
      return {
        symbol,
        level: args.level,
        source: '',
        ...indexState(engine),
        truncated: true,
        blockedByBudget: true,
        minimumRequiredBytes: sourceBytes,
      };
    }
    const page = takeWithinBudget(dependencies, args.maxTokens - sourceBytes, { key: requestKey(args) });
    return {
      symbol,
      level: args.level,
      source,
      ...(args.level === 'dependencies' && { dependencies: page.items }),
      ...indexState(engine),
      // The dependency list is cut to the budget; the source is never cut mid-way.
      truncated: page.truncated,
    };
  },
});
