import { budgetFields, cursorArg, maxTokensArg, requestedPage, ToolError } from '@toolmesh/core';
import { z } from 'zod';
import type { CodeGraph, FoundSymbol } from '../graph/code-graph.js';
import { SYMBOL_KINDS } from '../graph/facts.js';
import type { LocatedSymbol } from '../graph/graph-queries.js';
import {
  DEFAULT_TRACE_HOPS,
  hopSources,
  MAX_TRACE_HOPS,
  type SourceLines,
  traceCalls,
} from '../graph/trace.js';
import { defineTool, READ_ONLY } from './define.js';
import {
  fileArg,
  findOne,
  indexFields,
  indexState,
  symbolArg,
  symbolView,
  viewSymbol,
} from './symbol-views.js';

const placeView = z.object({
  qualifiedName: z.string(),
  kind: z.enum(SYMBOL_KINDS),
  file: z.string(),
  line: z.number().int(),
});

const sourceView = z.object({
  file: z.string(),
  startLine: z.number().int(),
  text: z.string().describe('The lines from startLine on, as they are on disk.'),
});

const hopView = z.object({
  edge: z
    .enum(['CALLS', 'IMPLEMENTS'])
    .describe(
      'CALLS: from calls to. IMPLEMENTS: to overrides or implements from, so a call to from may run to.',
    ),
  from: z.string(),
  to: placeView.extend({ signature: z.string() }),
  lines: z
    .array(z.number().int())
    .describe("CALLS: every callsite line in from's file; IMPLEMENTS: to's line."),
  callsite: sourceView.optional().describe('The first callsite with a line of context each side.'),
  callee: sourceView.optional().describe("The first lines of to's definition."),
});

const explanationView = z.object({
  message: z.string(),
  reachable: z.number().int().describe('Symbols from reaches by calls within maxHops.'),
  reaching: z.number().int().describe('Symbols that reach to by calls within maxHops.'),
  unresolved: z
    .array(
      z.object({
        caller: placeView,
        text: z.string().describe('The call as written, e.g. service.place.'),
        line: z.number().int(),
        hopsFromStart: z.number().int(),
        meant: placeView.describe('The symbol of that name which reaches to.'),
        hopsToTarget: z.number().int(),
      }),
    )
    .describe(
      'Unresolved calls out of reachable symbols whose name is that of a symbol reaching to: the likely breaks.',
    ),
  nearest: z
    .array(placeView.extend({ hops: z.number().int() }))
    .describe('Reachable symbols nearest to in the source tree.'),
  limitReached: z.boolean().describe('True when a search stopped at its visit bound.'),
  exhausted: z.boolean().describe('True when more hops would reach nothing new from from.'),
});

function place(engine: CodeGraph, found: FoundSymbol, symbol: LocatedSymbol): z.infer<typeof placeView> {
  return {
    qualifiedName: symbol.qualifiedName,
    kind: symbol.kind,
    file: engine.displayPath(found.root, symbol.path),
    line: symbol.startLine,
  };
}

type Explanation = Omit<z.infer<typeof explanationView>, 'message'>;

/** Why there is no path, most telling reason first. */
function explain(from: string, to: string, maxHops: number, gap: Explanation): string {
  const hops = (count: number) => `${count} hop${count === 1 ? '' : 's'}`;
  const reasons: string[] = [];
  const lead = gap.unresolved[0];
  if (lead) {
    reasons.push(
      `The likeliest break: ${lead.caller.qualifiedName} calls ${lead.text} at ${lead.caller.file}:${lead.line}, which resolved to nothing; ${lead.meant.qualifiedName} would reach ${to} in ${hops(lead.hopsToTarget)}. A receiver whose type the syntax does not give stays unresolved: annotate it, or follow the lead with code_callees.`,
    );
  }
  if (gap.limitReached) {
    reasons.push('The search stopped at its visit bound; give a smaller maxHops or a nearer from.');
  } else if (!gap.exhausted) {
    reasons.push(
      `What ${from} reaches at ${hops(maxHops)} still calls on: a longer path may exist, raise maxHops (at most ${MAX_TRACE_HOPS}).`,
    );
  }
  if (!lead && gap.reaching === 0) {
    reasons.push(`Nothing calls ${to} through resolved edges: look for its callers with search_code.`);
  } else if (reasons.length === 0) {
    reasons.push(
      `No unresolved call out of what ${from} reaches is named like a symbol that reaches ${to}: the two may not be connected by calls (a callback, an event, a dynamic import).`,
    );
  }
  return `No call path from ${from} to ${to} within ${hops(maxHops)}: ${from} reaches ${gap.reachable} symbol${gap.reachable === 1 ? '' : 's'}, ${gap.reaching} reach ${to}. ${reasons.join(' ')}`;
}

const renderSource = (source: z.infer<typeof sourceView>) =>
  source.text.split('\n').map((text, offset) => `      ${source.startLine + offset} | ${text}`);

export const codeTrace = defineTool({
  name: 'code_trace',
  title: 'Call path between two symbols',
  description: `The shortest call path from one symbol to another (fewest hops over resolved calls, and from an interface or base method to the methods implementing or overriding it), each hop with its callsite line and the callee's signature and first lines inline. When there is no path within maxHops (default ${DEFAULT_TRACE_HOPS}), an explanation of where it breaks: unresolved calls out of reachable symbols named like a symbol that reaches the target, and the reachable symbols nearest it.`,
  capability: 'read',
  input: z.object({
    from: symbolArg.describe(
      'Where the path starts: an exact name, qualified (OrderService.place) or plain.',
    ),
    to: symbolArg.describe('Where the path should end: an exact name, qualified or plain.'),
    fromFile: fileArg.describe('The file from is defined in, when its name is ambiguous.'),
    toFile: fileArg.describe('The file to is defined in, when its name is ambiguous.'),
    maxHops: z
      .number()
      .int()
      .min(1)
      .max(MAX_TRACE_HOPS)
      .default(DEFAULT_TRACE_HOPS)
      .describe('Most hops (calls, or interface-to-implementation steps) to search.'),
    maxTokens: maxTokensArg,
    cursor: cursorArg,
  }),
  output: z.object({
    from: symbolView,
    to: symbolView,
    found: z.boolean(),
    hopCount: z.number().int(),
    hops: z.array(hopView),
    explanation: explanationView.optional().describe('Present when no path was found.'),
    ...indexFields,
    ...budgetFields,
  }),
  annotations: READ_ONLY,
  actions: ['read'],
  render: (output) =>
    [
      ...(output.note ? [output.note] : []),
      output.found
        ? `${output.from.qualifiedName} → ${output.to.qualifiedName}: ${output.hopCount} hop${output.hopCount === 1 ? '' : 's'}`
        : (output.explanation?.message ?? ''),
      ...output.hops.flatMap((hop, index) => [
        hop.edge === 'CALLS'
          ? `${index + 1}. ${hop.from} calls ${hop.to.qualifiedName} at ${hop.callsite?.file ?? hop.to.file}:${hop.lines.join(', ')}`
          : `${index + 1}. ${hop.from} is implemented by ${hop.to.qualifiedName}`,
        ...(hop.callsite ? renderSource(hop.callsite) : []),
        `   ${hop.to.qualifiedName} (${hop.to.file}:${hop.to.line}): ${hop.to.signature}`,
        ...(hop.callee ? renderSource(hop.callee) : []),
      ]),
      ...(output.explanation?.unresolved ?? []).map(
        (lead) =>
          `  unresolved ${lead.text} in ${lead.caller.qualifiedName} (${lead.caller.file}:${lead.line}) — ${lead.meant.qualifiedName} reaches the target in ${lead.hopsToTarget}`,
      ),
      ...(output.explanation?.nearest ?? []).map(
        (near) =>
          `  reachable near the target: ${near.qualifiedName} (${near.file}:${near.line}), ${near.hops} hops`,
      ),
      ...(output.truncated ? ['(more: call again with nextCursor)'] : []),
    ].join('\n'),
  async handle(args, { engine }) {
    const from = findOne(engine, args.from, args.fromFile);
    const to = findOne(engine, args.to, args.toFile);
    if (from.root !== to.root) {
      throw new ToolError(
        `${args.from} and ${args.to} are in different roots (${from.root.root}, ${to.root.root}); calls are only traced within one root.`,
        'bad_arguments',
      );
    }
    if (from.symbol.id === to.symbol.id) {
      throw new ToolError(
        `from and to are the same symbol (${args.from}): give two different symbols.`,
        'bad_arguments',
      );
    }
    const trace = traceCalls(from.root.queries, from.symbol, to.symbol, args.maxHops);
    const hops = trace.found ? trace.hops : [];
    const sources = await hopSources(from.root.root, hops);
    const shown = (source: SourceLines | undefined) =>
      source && { ...source, file: engine.displayPath(from.root, source.file) };
    const views = hops.map((hop, index) => {
      const callsite = shown(sources[index]?.callsite);
      const callee = shown(sources[index]?.callee);
      return {
        edge: hop.edge,
        from: hop.from.qualifiedName,
        to: { ...place(engine, from, hop.to), signature: hop.to.signature },
        lines: hop.lines,
        ...(callsite && { callsite }),
        ...(callee && { callee }),
      };
    });
    const { items, ...budget } = requestedPage(views, args);
    const gap: Explanation | undefined = trace.found
      ? undefined
      : {
          reachable: trace.explanation.reachable,
          reaching: trace.explanation.reaching,
          unresolved: trace.explanation.unresolved.map((lead) => ({
            caller: place(engine, from, lead.caller),
            text: lead.text,
            line: lead.line,
            hopsFromStart: lead.hopsFromStart,
            meant: place(engine, from, lead.meant),
            hopsToTarget: lead.hopsToTarget,
          })),
          nearest: trace.explanation.nearest.map((near) => ({
            ...place(engine, from, near.symbol),
            hops: near.hops,
          })),
          limitReached: trace.explanation.limitReached,
          exhausted: trace.explanation.exhausted,
        };
    const explanation = gap && {
      message: explain(from.symbol.qualifiedName, to.symbol.qualifiedName, args.maxHops, gap),
      ...gap,
    };
    return {
      from: viewSymbol(engine, from),
      to: viewSymbol(engine, to),
      found: trace.found,
      hopCount: hops.length,
      hops: items,
      ...(explanation && { explanation }),
      ...indexState(engine),
      ...budget,
    };
  },
});
