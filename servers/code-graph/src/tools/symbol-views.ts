import { ToolError } from '@toolmesh/core';
import { z } from 'zod';
import type { CodeGraph, FoundSymbol } from '../graph/code-graph.js';
import { SYMBOL_KINDS } from '../graph/facts.js';
import type { Callsite } from '../graph/graph-queries.js';

export const symbolView = z.object({
  name: z.string(),
  qualifiedName: z.string().describe('Name through enclosing classes, e.g. Money.multiplyByRate.'),
  kind: z.enum(SYMBOL_KINDS),
  file: z.string(),
  line: z.number().int(),
  endLine: z.number().int(),
  signature: z.string(),
  doc: z.string().optional(),
  exported: z.boolean(),
});

export const callsiteView = z.object({
  file: z.string(),
  line: z.number().int(),
  resolution: z
    .string()
    .describe('How the call was bound: local, import, self, typed, field, returned, static, unique-name.'),
  confidence: z.number(),
});

/** Fields every answer carries, so a model knows when the index is still being built. */
export const indexFields = {
  indexComplete: z.boolean().describe('False while the first index runs or changes are pending.'),
  note: z.string().optional(),
};

export function indexState(graph: CodeGraph): { indexComplete: boolean; note?: string } {
  const incomplete = graph.incompleteNote();
  const note = [incomplete, graph.failuresNote()].filter(Boolean).join(' ');
  return { indexComplete: incomplete === undefined, ...(note && { note }) };
}

export function viewSymbol(graph: CodeGraph, found: FoundSymbol): z.infer<typeof symbolView> {
  const { symbol } = found;
  return {
    name: symbol.name,
    qualifiedName: symbol.qualifiedName,
    kind: symbol.kind,
    file: graph.displayPath(found.root, symbol.path),
    line: symbol.startLine,
    endLine: symbol.endLine,
    signature: symbol.signature,
    ...(symbol.doc && { doc: symbol.doc }),
    exported: symbol.exported,
  };
}

export function viewCallsite(
  graph: CodeGraph,
  found: FoundSymbol,
  callsite: Callsite,
): z.infer<typeof callsiteView> {
  return {
    file: graph.displayPath(found.root, callsite.path),
    line: callsite.line,
    resolution: callsite.resolution,
    confidence: callsite.confidence,
  };
}

export function location(symbol: z.infer<typeof symbolView>): string {
  return `${symbol.file}:${symbol.line}`;
}

export const symbolArg = z
  .string()
  .describe('An exact name: qualified (Money.multiplyByRate) or plain (multiplyByRate).');
export const fileArg = z
  .string()
  .optional()
  .describe(
    'Only the symbol defined in this file (relative to the first root, or absolute), when the name is ambiguous; file:line (as an ambiguous answer lists them) picks one of several in one file.',
  );

/** `path:line` as the path and the line a definition starts on; a plain path has no line. */
function splitLine(file: string): { path: string; line?: number } {
  const found = /^(.+):(\d+)$/.exec(file);
  return found?.[1] && found[2] ? { path: found[1], line: Number(found[2]) } : { path: file };
}

/** A path argument as root and root-relative path; outside every root is a clear error. */
export function locatePath(graph: CodeGraph, given: string) {
  const located = graph.locate(given);
  if (!located) {
    throw new ToolError(
      `${given} is outside the indexed roots (${graph.roots.map((entry) => entry.root).join(', ')}): give a path inside one of them.`,
      'outside_roots',
    );
  }
  return located;
}

/** Every symbol the name means, narrowed to `file` when given; none is an error that says what to try. */
export function findOrExplain(graph: CodeGraph, name: string, file?: string): FoundSymbol[] {
  const trimmed = name.trim();
  if (!trimmed)
    throw new ToolError(
      'The symbol name is empty: give a name such as Money.multiplyByRate.',
      'bad_arguments',
    );
  let found = graph.findSymbols(trimmed);
  if (file !== undefined) {
    const { path, line } = splitLine(file);
    const { root, relative } = locatePath(graph, path);
    found = found.filter(
      (entry) =>
        entry.root === root &&
        entry.symbol.path === relative &&
        (line === undefined || entry.symbol.startLine === line),
    );
  }
  if (found.length === 0) {
    const where = file !== undefined ? ` in ${file}` : '';
    const pending = graph.incompleteNote();
    throw new ToolError(
      `No symbol named "${trimmed}"${where} is indexed. Names are exact (Class.method or method); find the right one with search_code.${pending ? ` ${pending}` : ''}`,
      'not_found',
    );
  }
  return found;
}

/** The one symbol the name means; several is an error listing them, so the caller can pick. */
export function findOne(graph: CodeGraph, name: string, file?: string): FoundSymbol {
  const found = findOrExplain(graph, name, file);
  if (found.length > 1) {
    const listed = found
      .slice(0, 20)
      .map(
        (entry) =>
          `${entry.symbol.qualifiedName} (${entry.symbol.kind}) at ${graph.displayPath(entry.root, entry.symbol.path)}:${entry.symbol.startLine}`,
      )
      .join('; ');
    throw new ToolError(
      `"${name}" names ${found.length} symbols: ${listed}${found.length > 20 ? '; …' : ''}. Call again with the qualified name, or with file (file:line for one of several in one file).`,
      'ambiguous',
    );
  }
  return found[0] as FoundSymbol;
}
