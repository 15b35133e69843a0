import { budgetFields, cursorArg, maxTokensArg, requestedPage } from '@toolmesh/core';
import { z } from 'zod';
import { defineTool, READ_ONLY } from './define.js';
import {
  callsiteView,
  fileArg,
  findOne,
  indexFields,
  indexState,
  location,
  symbolArg,
  symbolView,
  viewCallsite,
  viewSymbol,
} from './symbol-views.js';

const callsitesLine = (callsites: z.infer<typeof callsiteView>[]) =>
  callsites.map((callsite) => `${callsite.file}:${callsite.line} (${callsite.resolution})`).join(', ');

export const codeCallers = defineTool({
  name: 'code_callers',
  title: 'Who calls a symbol',
  description:
    'Every symbol that calls the given function, method or class (constructor calls), each with every callsite file:line, and both counts: caller symbols and callsites (a method calling twice is one caller, two callsites). Calls whose receiver type the syntax does not give are not included; index_status reports how many calls are unresolved.',
  capability: 'read',
  input: z.object({ symbol: symbolArg, file: fileArg, maxTokens: maxTokensArg, cursor: cursorArg }),
  output: z.object({
    symbol: symbolView,
    callerCount: z.number().int().describe('Distinct calling symbols.'),
    callsiteCount: z.number().int().describe('Call expressions, over all callers.'),
    callers: z.array(z.object({ caller: symbolView, callsites: z.array(callsiteView) })),
    ...indexFields,
    ...budgetFields,
  }),
  annotations: READ_ONLY,
  actions: ['read'],
  render: (output) =>
    [
      ...(output.note ? [output.note] : []),
      `${output.symbol.qualifiedName} (${location(output.symbol)}): ${output.callerCount} caller${output.callerCount === 1 ? '' : 's'}, ${output.callsiteCount} callsite${output.callsiteCount === 1 ? '' : 's'}`,
      ...output.callers.map((group) => `  ${group.caller.qualifiedName}  ${callsitesLine(group.callsites)}`),
      ...(output.truncated ? ['(more: call again with nextCursor)'] : []),
    ].join('\n'),
  async handle(args, { engine }) {
    const target = findOne(engine, args.symbol, args.file);
    const groups = target.root.queries.callers(target.symbol.id).map((group) => ({
      caller: viewSymbol(engine, { root: target.root, symbol: group.caller }),
      callsites: group.callsites.map((callsite) => viewCallsite(engine, target, callsite)),
    }));
    const { items, ...budget } = requestedPage(groups, args);
    return {
      symbol: viewSymbol(engine, target),
      callerCount: groups.length,
      callsiteCount: groups.reduce((sum, group) => sum + group.callsites.length, 0),
      callers: items,
      ...indexState(engine),
      ...budget,
    };
  },
});

export const codeCallees = defineTool({
  name: 'code_callees',
  title: 'What a symbol calls',
  description:
    'Everything the given function or method calls, each callee with every callsite file:line, and both counts: callees and callsites. Calls that did not resolve to an indexed symbol (library calls, receivers of unknown type) are listed by their text without a symbol.',
  capability: 'read',
  input: z.object({ symbol: symbolArg, file: fileArg, maxTokens: maxTokensArg, cursor: cursorArg }),
  output: z.object({
    symbol: symbolView,
    calleeCount: z.number().int(),
    callsiteCount: z.number().int(),
    unresolvedCallsites: z.number().int(),
    callees: z.array(
      z.object({
        callee: symbolView.optional().describe('Absent when the call did not resolve to an indexed symbol.'),
        text: z.string().describe('The call as written, e.g. this.rates.lookup.'),
        callsites: z.array(callsiteView),
      }),
    ),
    ...indexFields,
    ...budgetFields,
  }),
  annotations: READ_ONLY,
  actions: ['read'],
  render: (output) =>
    [
      ...(output.note ? [output.note] : []),
      `${output.symbol.qualifiedName} (${location(output.symbol)}) calls ${output.calleeCount} target${output.calleeCount === 1 ? '' : 's'} at ${output.callsiteCount} callsite${output.callsiteCount === 1 ? '' : 's'} (${output.unresolvedCallsites} unresolved)`,
      ...output.callees.map(
        (group) =>
          `  ${group.callee ? `${group.callee.qualifiedName} (${location(group.callee)})` : `${group.text} (unresolved)`}  ${callsitesLine(group.callsites)}`,
      ),
      ...(output.truncated ? ['(more: call again with nextCursor)'] : []),
    ].join('\n'),
  async handle(args, { engine }) {
    const source = findOne(engine, args.symbol, args.file);
    const groups = source.root.queries.callees(source.symbol.id).map((group) => ({
      ...(group.callee && { callee: viewSymbol(engine, { root: source.root, symbol: group.callee }) }),
      text: group.text,
      callsites: group.callsites.map((callsite) => viewCallsite(engine, source, callsite)),
    }));
    const { items, ...budget } = requestedPage(groups, args);
    return {
      symbol: viewSymbol(engine, source),
      calleeCount: groups.length,
      callsiteCount: groups.reduce((sum, group) => sum + group.callsites.length, 0),
      unresolvedCallsites: groups
        .filter((group) => !group.callee)
        .reduce((sum, group) => sum + group.callsites.length, 0),
      callees: items,
      ...indexState(engine),
      ...budget,
    };
  },
});
