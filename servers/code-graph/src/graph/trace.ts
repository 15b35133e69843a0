import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { GraphQueries, GraphStep, LocatedSymbol } from './graph-queries.js';

export const DEFAULT_TRACE_HOPS = 10;
export const MAX_TRACE_HOPS = 20;
/** Symbols one search visits at most, either way: a bound on time for huge, densely called code. */
const MAX_VISITED = 20000;
const MAX_UNRESOLVED_SHOWN = 10;
const MAX_NEAREST_SHOWN = 5;
/** Lines shown around a callsite, and of a callee from its first line. */
const CALLSITE_CONTEXT = 1;
const CALLEE_LINES = 4;

export interface TraceHop {
  from: LocatedSymbol;
  to: LocatedSymbol;
  /** CALLS: `from` calls `to`. IMPLEMENTS: `to` overrides or implements `from`, so a call to `from` may run `to`. */
  edge: 'CALLS' | 'IMPLEMENTS';
  /** CALLS: every line in from's file where it calls `to`; IMPLEMENTS: the line `to` is declared at. */
  lines: number[];
}

export interface UnresolvedLead {
  /** A symbol `from` reaches, and the call in it that resolved to nothing. */
  caller: LocatedSymbol;
  text: string;
  line: number;
  hopsFromStart: number;
  /** The symbol of that name which reaches `to`, and in how many hops. */
  meant: LocatedSymbol;
  hopsToTarget: number;
}

export interface TraceBreak {
  /** Symbols `from` reaches by calls within the hop limit (itself excluded). */
  reachable: number;
  /** Symbols that reach `to` by calls within the hop limit (itself excluded). */
  reaching: number;
  /** Where the path most likely breaks: an unresolved call out of a reachable symbol named like one on the other side. */
  unresolved: UnresolvedLead[];
  /** The reachable symbols nearest `to` in the source tree, with their hops from `from`. */
  nearest: { symbol: LocatedSymbol; hops: number }[];
  /** True when a search stopped at its visit bound before the hop limit. */
  limitReached: boolean;
  /** True when what `from` reaches at the hop limit calls nothing new: more hops would not help. */
  exhausted: boolean;
}

export type Trace = { found: true; hops: TraceHop[] } | { found: false; explanation: TraceBreak };

interface Visit {
  hops: number;
  previous?: number;
  edge?: GraphStep['kind'];
}

/** Breadth first from `start` along `next`, to `maxHops`, stopping early once `goal` is seen. */
function search(
  start: number,
  next: (id: number) => GraphStep[],
  maxHops: number,
  goal?: number,
): { visits: Map<number, Visit>; limitReached: boolean; exhausted: boolean } {
  const visits = new Map<number, Visit>([[start, { hops: 0 }]]);
  let frontier = [start];
  for (let hops = 1; hops <= maxHops && frontier.length > 0; hops++) {
    const following: number[] = [];
    for (const id of frontier) {
      for (const step of next(id)) {
        if (visits.has(step.id)) continue;
        visits.set(step.id, { hops, previous: id, edge: step.kind });
        if (step.id === goal) return { visits, limitReached: false, exhausted: false };
        following.push(step.id);
      }
      if (visits.size >= MAX_VISITED) return { visits, limitReached: true, exhausted: false };
    }
    frontier = following;
  }
  // Symbols left at the last hop may still call on: a longer path is not ruled out.
  const exhausted = frontier.every((id) => next(id).every((step) => visits.has(step.id)));
  return { visits, limitReached: false, exhausted };
}

/**
 * The shortest call path from one symbol to another, by hops over CALLS edges and from a
 * base or interface method to the methods overriding it (what a call to it may run). When
 * there is none within `maxHops`, an explanation of where it breaks instead.
 */
export function traceCalls(
  queries: GraphQueries,
  from: LocatedSymbol,
  to: LocatedSymbol,
  maxHops: number,
): Trace {
  const forward = search(from.id, (id) => queries.callsOutOf(id), maxHops, to.id);
  if (forward.visits.has(to.id)) return { found: true, hops: pathTo(queries, forward.visits, to.id) };

  const backward = search(to.id, (id) => queries.callsInto(id), maxHops);
  // Per name, the symbol of that name nearest `to` among those reaching it.
  const reachingByName = new Map<string, { symbol: LocatedSymbol; hops: number }>();
  for (const symbol of queries.locatedMany([...backward.visits.keys()])) {
    const hops = backward.visits.get(symbol.id)?.hops ?? 0;
    const known = reachingByName.get(symbol.name);
    if (symbol.kind !== 'file' && (!known || known.hops > hops))
      reachingByName.set(symbol.name, { symbol, hops });
  }
  const reachableSymbols = queries.locatedMany([...forward.visits.keys()]);
  const reachable = new Map(reachableSymbols.map((symbol) => [symbol.id, symbol]));
  const unresolved: UnresolvedLead[] = queries
    .unresolvedCallsNamed([...reachingByName.keys()])
    .flatMap((call) => {
      const caller = reachable.get(call.id);
      const meant = reachingByName.get(call.name);
      if (!caller || !meant) return [];
      const hopsFromStart = forward.visits.get(call.id)?.hops ?? 0;
      return [
        {
          caller,
          text: call.text,
          line: call.line,
          hopsFromStart,
          meant: meant.symbol,
          hopsToTarget: meant.hops,
        },
      ];
    })
    .sort((a, b) => a.hopsFromStart + a.hopsToTarget - (b.hopsFromStart + b.hopsToTarget) || a.line - b.line)
    .slice(0, MAX_UNRESOLVED_SHOWN);
  const nearest = reachableSymbols
    .filter((symbol) => symbol.kind !== 'file')
    .map((symbol) => ({
      symbol,
      closeness: sharedFolders(symbol.path, to.path),
      hops: forward.visits.get(symbol.id)?.hops ?? 0,
    }))
    .sort((a, b) => b.closeness - a.closeness || b.hops - a.hops || a.symbol.startLine - b.symbol.startLine)
    .slice(0, MAX_NEAREST_SHOWN)
    .map(({ symbol, hops }) => ({ symbol, hops }));
  return {
    found: false,
    explanation: {
      reachable: forward.visits.size - 1,
      reaching: backward.visits.size - 1,
      unresolved,
      nearest,
      limitReached: forward.limitReached || backward.limitReached,
      exhausted: forward.exhausted,
    },
  };
}

/** How many leading path segments two files share, counting the file itself as one more. */
function sharedFolders(a: string, b: string): number {
  if (a === b) return Number.MAX_SAFE_INTEGER;
  const left = a.split('/');
  const right = b.split('/');
  let shared = 0;
  while (shared < left.length - 1 && left[shared] === right[shared]) shared++;
  return shared;
}

function pathTo(queries: GraphQueries, visits: Map<number, Visit>, goal: number): TraceHop[] {
  const chain: { id: number; visit: Visit }[] = [];
  for (let id: number | undefined = goal; id !== undefined; id = visits.get(id)?.previous) {
    chain.unshift({ id, visit: visits.get(id) as Visit });
  }
  const symbols = new Map(
    queries.locatedMany(chain.map((link) => link.id)).map((symbol) => [symbol.id, symbol]),
  );
  const hops: TraceHop[] = [];
  for (let index = 1; index < chain.length; index++) {
    const fromId = (chain[index - 1] as { id: number }).id;
    const { id, visit } = chain[index] as { id: number; visit: Visit };
    const from = symbols.get(fromId);
    const to = symbols.get(id);
    if (!from || !to) continue;
    const edge = visit.edge === 'IMPLEMENTS' ? 'IMPLEMENTS' : 'CALLS';
    const lines =
      edge === 'CALLS'
        ? queries
            .callsOutOf(fromId)
            .filter((step) => step.id === id && step.kind === 'CALLS')
            .map((step) => step.line)
        : [to.startLine];
    hops.push({ from, to, edge, lines });
  }
  return hops;
}

export interface SourceLines {
  file: string;
  startLine: number;
  text: string;
}

/** A hop's source: the first callsite with a line of context each side, and the head of the callee. */
export interface HopSource {
  callsite?: SourceLines;
  callee?: SourceLines;
}

/**
 * Reads the lines a trace shows from the files under `root` (the store keeps locations, not
 * text). A file that can no longer be read gives no lines rather than failing the trace.
 */
export async function hopSources(root: string, hops: readonly TraceHop[]): Promise<HopSource[]> {
  const files = new Map<string, Promise<string[] | undefined>>();
  const linesOf = (relative: string) => {
    let lines = files.get(relative);
    if (!lines) {
      lines = fs.readFile(path.join(root, relative), 'utf8').then(
        (text) => text.split('\n'),
        () => undefined,
      );
      files.set(relative, lines);
    }
    return lines;
  };
  const excerpt = async (file: string, first: number, last: number): Promise<SourceLines | undefined> => {
    const lines = await linesOf(file);
    if (!lines) return undefined;
    const startLine = Math.max(1, first);
    return { file, startLine, text: lines.slice(startLine - 1, Math.max(startLine, last)).join('\n') };
  };
  return Promise.all(
    hops.map(async (hop) => {
      const site = hop.edge === 'CALLS' ? hop.lines[0] : undefined;
      const callsite =
        site !== undefined
          ? await excerpt(hop.from.path, site - CALLSITE_CONTEXT, site + CALLSITE_CONTEXT)
          : undefined;
      const callee = await excerpt(
        hop.to.path,
        hop.to.startLine,
        Math.min(hop.to.endLine, hop.to.startLine + CALLEE_LINES - 1),
      );
      return { ...(callsite && { callsite }), ...(callee && { callee }) };
    }),
  );
}
