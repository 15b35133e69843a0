import { budgetFields, cursorArg, maxTokensArg, requestedPage } from '@toolmesh/core';
import { z } from 'zod';
import type { LocatedSymbol } from '../graph/graph-queries.js';
import { defineTool, READ_ONLY } from './define.js';
import { indexFields, indexState, locatePath } from './symbol-views.js';

const SYMBOLS_PER_FILE = 12;

const mapEntry = z.object({
  file: z.string(),
  symbols: z.array(
    z.object({ qualifiedName: z.string(), kind: z.string(), line: z.number().int(), signature: z.string() }),
  ),
});

export const repoMap = defineTool({
  name: 'repo_map',
  title: 'Repository map',
  description: `The most important files and, in each, its most important symbols (up to ${SYMBOLS_PER_FILE}) with signatures, within the budget: a first look at a repository or a folder. Importance is how much the rest of the code imports and calls it.`,
  capability: 'read',
  input: z.object({
    path: z.string().optional().describe('A file or folder to map (default: every root).'),
    maxTokens: maxTokensArg,
    cursor: cursorArg,
  }),
  output: z.object({ files: z.array(mapEntry), ...indexFields, ...budgetFields }),
  annotations: READ_ONLY,
  actions: ['read'],
  render: (output) =>
    [
      ...(output.note ? [output.note] : []),
      ...output.files.flatMap((entry) => [
        entry.file,
        ...entry.symbols.map(
          (symbol) => `  ${symbol.line}: ${symbol.kind} ${symbol.qualifiedName}  ${symbol.signature}`,
        ),
      ]),
      ...(output.truncated ? ['(more: call again with nextCursor)'] : []),
    ].join('\n'),
  async handle(args, { engine }) {
    const scope = args.path !== undefined ? locatePath(engine, args.path) : undefined;
    const entries: z.infer<typeof mapEntry>[] = [];
    for (const root of engine.roots) {
      if (scope && scope.root !== root) continue;
      const prefix = scope?.relative ?? '';
      const byFile = new Map<string, LocatedSymbol[]>();
      for (const symbol of root.queries.mapSymbols(prefix)) {
        const list = byFile.get(symbol.path) ?? [];
        if (list.length < SYMBOLS_PER_FILE) list.push(symbol);
        byFile.set(symbol.path, list);
      }
      for (const { path } of root.queries.fileImportance(prefix)) {
        entries.push({
          file: engine.displayPath(root, path),
          symbols: (byFile.get(path) ?? []).map((symbol) => ({
            qualifiedName: symbol.qualifiedName,
            kind: symbol.kind,
            line: symbol.startLine,
            signature: symbol.signature,
          })),
        });
      }
    }
    const { items, ...budget } = requestedPage(entries, args);
    return { files: items, ...indexState(engine), ...budget };
  },
});
