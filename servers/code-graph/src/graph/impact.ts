import type { EdgeKind, FileFacts } from './facts.js';
import type { GraphQueries, LocatedSymbol } from './graph-queries.js';
import type { GraphStore } from './graph-store.js';
import { isTestPath } from './test-paths.js';

export const DEFAULT_IMPACT_DEPTH = 3;
export const MAX_IMPACT_DEPTH = 6;
/** Past this many symbols the answer is "most of the code"; the walk stops widening and says so. */
export const MAX_IMPACTED = 5000;

/** Kinds whose reads the graph does not record as edges: their importers are what reaches them. */
const VALUE_KINDS = new Set(['variable', 'constant']);

export interface ImpactedSymbol {
  symbol: LocatedSymbol;
  /** Edges from the target on the shortest path found. */
  distance: number;
  /** The last edge of that path, written `from --edge--> to`; one end is this symbol. */
  edge: EdgeKind;
  from: LocatedSymbol;
  to: LocatedSymbol;
  /** The line of that edge in from's file: a callsite, a type use, an import, a declaration. */
  line: number;
}

export interface ImpactGroup {
  path: string;
  /** A test file by its language's conventions (test-paths.ts). */
  test: boolean;
  symbols: ImpactedSymbol[];
}

export interface Impact {
  /** Affected files nearest first; test files after the others. */
  groups: ImpactGroup[];
  affectedSymbols: number;
  testSymbols: number;
  /** True when the walk stopped at MAX_IMPACTED symbols before reaching the depth. */
  limitReached: boolean;
}

/**
 * How a symbol was reached, which decides where the walk goes from it: `use` follows every
 * user; `dispatch` is a base method reached up an override edge, whose callers may run the
 * override but whose other overrides are unaffected; `import` is a file that imports a value
 * by name, followed on only where it re-exports it (as `passes`).
 */
type Mode = { kind: 'use' } | { kind: 'dispatch' } | { kind: 'import'; passes?: string };

interface Reached {
  id: number;
  distance: number;
  edge: EdgeKind;
  fromId: number;
  toId: number;
  line: number;
  mode: Mode;
}

type Step = Omit<Reached, 'distance'>;

/**
 * The transitive blast radius of a symbol: breadth first over what uses it — callers (CALLS),
 * type users (REFERENCES), subclasses and implementations (EXTENDS, IMPLEMENTS), callers of the
 * base methods it overrides (the calls that may dispatch to it), and for exported values the
 * files importing them by name (through re-exports) — to `depth` edges. Each symbol is listed
 * once, at its shortest distance, with the edge that reached it.
 */
export function impactOf(
  store: GraphStore,
  queries: GraphQueries,
  target: LocatedSymbol,
  depth: number,
): Impact {
  const reached = new Map<number, Reached>();
  const symbols = new Map<number, LocatedSymbol>([[target.id, target]]);
  const facts = new Map<number, FileFacts>();
  const factsOf = (fileId: number): FileFacts => {
    let known = facts.get(fileId);
    if (!known) {
      known = store.factsOf(fileId);
      facts.set(fileId, known);
    }
    return known;
  };
  let frontier: Pick<Reached, 'id' | 'mode'>[] = [{ id: target.id, mode: { kind: 'use' } }];
  let limitReached = false;
  for (let distance = 1; distance <= depth && frontier.length > 0 && !limitReached; distance++) {
    const next: Reached[] = [];
    for (const node of frontier) {
      const symbol = symbols.get(node.id);
      if (!symbol) continue;
      for (const step of neighbours(node, symbol)) {
        if (step.id === target.id || reached.has(step.id)) continue;
        const found: Reached = { ...step, distance };
        reached.set(step.id, found);
        next.push(found);
      }
      if (reached.size >= MAX_IMPACTED) {
        limitReached = true;
        break;
      }
    }
    for (const symbol of queries.locatedMany(next.map((node) => node.id))) symbols.set(symbol.id, symbol);
    frontier = next;
  }

  function neighbours(node: Pick<Reached, 'id' | 'mode'>, symbol: LocatedSymbol): Step[] {
    if (node.mode.kind === 'import') {
      return node.mode.passes !== undefined ? valueImporters(symbol, node.mode.passes, node.id) : [];
    }
    const steps: Step[] = [];
    for (const step of queries.usesOf(node.id)) {
      const common = { id: step.id, edge: step.kind, line: step.line };
      if (step.upward) steps.push({ ...common, fromId: node.id, toId: step.id, mode: { kind: 'dispatch' } });
      else if (node.mode.kind === 'use' || step.kind === 'CALLS')
        steps.push({ ...common, fromId: step.id, toId: node.id, mode: { kind: 'use' } });
    }
    if (
      node.mode.kind === 'use' &&
      VALUE_KINDS.has(symbol.kind) &&
      symbol.exported &&
      symbol.parentId === null
    ) {
      const fileNode = store.fileNodeOf(symbol.fileId);
      const file = fileNode !== undefined ? queries.symbol(fileNode) : undefined;
      if (file) steps.push(...valueImporters(file, symbol.name, symbol.id));
    }
    return steps;
  }

  /**
   * The files importing `name` from `file` by that name, as a namespace or through `export *`;
   * an importer that re-exports it passes it on to its own importers. `usedId` is what they
   * import it from: the value itself, or the file re-exporting it.
   */
  function valueImporters(file: LocatedSymbol, name: string, usedId: number): Step[] {
    const steps: Step[] = [];
    for (const edge of queries.importsInto(file.id)) {
      for (const fact of factsOf(edge.fileId).imports) {
        if (fact.specifier !== edge.specifier) continue;
        const binding = fact.bindings.find((candidate) => candidate.imported === name);
        const namespace = fact.bindings.some((candidate) => candidate.imported === undefined);
        if (!binding && !fact.star && !namespace) continue;
        const passes = fact.reexport && (binding || fact.star) ? (binding?.local ?? name) : undefined;
        steps.push({
          id: edge.id,
          edge: 'IMPORTS',
          fromId: edge.id,
          toId: usedId,
          line: edge.line,
          mode: passes !== undefined ? { kind: 'import', passes } : { kind: 'import' },
        });
        break;
      }
    }
    return steps;
  }

  // Every end of every edge was reached (or is the target), so `symbols` holds them all.
  return group(reached, symbols, limitReached);
}

function group(
  reached: Map<number, Reached>,
  symbols: Map<number, LocatedSymbol>,
  limitReached: boolean,
): Impact {
  const byPath = new Map<string, ImpactGroup>();
  for (const node of reached.values()) {
    const symbol = symbols.get(node.id);
    const from = symbols.get(node.fromId);
    const to = symbols.get(node.toId);
    if (!symbol || !from || !to) continue;
    let entry = byPath.get(symbol.path);
    if (!entry) {
      entry = { path: symbol.path, test: isTestPath(symbol.path), symbols: [] };
      byPath.set(symbol.path, entry);
    }
    entry.symbols.push({ symbol, distance: node.distance, edge: node.edge, from, to, line: node.line });
  }
  const nearest = (entry: ImpactGroup) => Math.min(...entry.symbols.map((item) => item.distance));
  for (const entry of byPath.values()) {
    entry.symbols.sort((a, b) => a.distance - b.distance || a.symbol.startLine - b.symbol.startLine);
  }
  const groups = [...byPath.values()].sort(
    (a, b) => Number(a.test) - Number(b.test) || nearest(a) - nearest(b) || a.path.localeCompare(b.path),
  );
  const count = (test: boolean) =>
    groups.filter((entry) => entry.test === test).reduce((sum, entry) => sum + entry.symbols.length, 0);
  return { groups, affectedSymbols: count(false), testSymbols: count(true), limitReached };
}
