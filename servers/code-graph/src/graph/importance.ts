import type { SqliteDatabase } from '@toolmesh/core';

/** The edges along which importance flows, from the user to what it uses. */
const RANKED_EDGE_KINDS = ['CALLS', 'IMPORTS', 'REFERENCES', 'EXTENDS', 'IMPLEMENTS'] as const;
const DAMPING = 0.85;
const MAX_ITERATIONS = 100;
/** Total rank (which sums to 1) moved by one iteration below which the ranks count as settled. */
const SETTLED = 1e-7;
/** Importance is kept to this many decimals, so a batch that moves nothing visible writes nothing. */
const DECIMALS = 4;

// `target_id > 0` lets SQLite walk the (target_id, kind) index past the many unresolved edges.
const RANKED_EDGES = `target_id > 0 AND source_id != target_id AND kind IN (${RANKED_EDGE_KINDS.map((kind) => `'${kind}'`).join(', ')})`;

/**
 * PageRank over the resolved uses between symbols: a symbol is important when important
 * symbols call, import, reference, extend or implement it, each edge (callsite) counting once.
 * Stored as how far a symbol's rank is above that of a symbol nothing uses, in units of the
 * average rank: 0 for unused symbols, and for the rest about the number of users weighted by
 * their own importance, so it reads like the in-degree it replaces.
 *
 * Reading every edge is most of the cost, so the ranker keeps each file's edges in memory and
 * after a batch reads again only the files whose edges changed; the iteration starts from the
 * stored values, so after a small batch it settles in a few rounds.
 */
export class SymbolRanker {
  /** Per file: its ranked edges as [source, target, source, target, …]. */
  private edgesByFile = new Map<number, number[]>();
  private loaded = false;
  private readonly statements;

  constructor(db: SqliteDatabase) {
    this.statements = {
      symbols: db.prepare('SELECT id, importance FROM symbols ORDER BY id'),
      files: db.prepare('SELECT id FROM files'),
      allEdges: db.prepare(`SELECT file_id, source_id, target_id FROM edges WHERE ${RANKED_EDGES}`),
      edgesOfFile: db.prepare(`SELECT source_id, target_id FROM edges WHERE file_id = ? AND ${RANKED_EDGES}`),
      update: db.prepare('UPDATE symbols SET importance = ? WHERE id = ?'),
    };
  }

  /** Ranks again; `changedFiles` are the files whose edges changed since the last call (all, when omitted). */
  rank(changedFiles?: Iterable<number>): void {
    try {
      this.rankFrom(changedFiles);
    } catch (error) {
      // The batch's transaction rolls back: what was read of it must not outlive it.
      this.loaded = false;
      throw error;
    }
  }

  private rankFrom(changedFiles: Iterable<number> | undefined): void {
    this.readEdges(changedFiles);
    const symbols = this.statements.symbols.raw().all() as [number, number][];
    const count = symbols.length;
    if (count === 0) return;
    const position = new Map<number, number>();
    symbols.forEach(([id], index) => {
      position.set(id, index);
    });
    let total = 0;
    for (const edges of this.edgesByFile.values()) total += edges.length / 2;
    const sources = new Int32Array(total);
    const targets = new Int32Array(total);
    const outDegree = new Float64Array(count);
    let used = 0;
    for (const edges of this.edgesByFile.values()) {
      for (let index = 0; index < edges.length; index += 2) {
        const source = position.get(edges[index]!);
        const target = position.get(edges[index + 1]!);
        // An edge into a symbol deleted since its file was read (its target is now NULL).
        if (source === undefined || target === undefined) continue;
        sources[used] = source;
        targets[used] = target;
        outDegree[source]! += 1;
        used++;
      }
    }
    const rank = iterate(startingRanks(symbols), sources, targets, outDegree, used);
    let floor = Number.POSITIVE_INFINITY;
    for (const value of rank) floor = Math.min(floor, value);
    const scale = 10 ** DECIMALS;
    symbols.forEach(([id, stored], index) => {
      const importance = Math.round((rank[index]! - floor) * count * scale) / scale;
      if (importance !== stored) this.statements.update.run(importance, id);
    });
  }

  private readEdges(changedFiles: Iterable<number> | undefined): void {
    if (!this.loaded || changedFiles === undefined) {
      this.edgesByFile = new Map();
      for (const [fileId, source, target] of this.statements.allEdges.raw().all() as number[][]) {
        const edges = this.edgesByFile.get(fileId!) ?? [];
        edges.push(source!, target!);
        this.edgesByFile.set(fileId!, edges);
      }
      this.loaded = true;
      return;
    }
    const present = new Set((this.statements.files.raw().all() as [number][]).map(([id]) => id));
    for (const fileId of this.edgesByFile.keys()) if (!present.has(fileId)) this.edgesByFile.delete(fileId);
    for (const fileId of new Set(changedFiles)) {
      const rows = this.statements.edgesOfFile.raw().all(fileId) as [number, number][];
      if (rows.length === 0) this.edgesByFile.delete(fileId);
      else this.edgesByFile.set(fileId, rows.flat());
    }
  }
}

/** Power iteration; a symbol that uses nothing spreads its rank evenly over all. */
function iterate(
  start: Float64Array,
  sources: Int32Array,
  targets: Int32Array,
  outDegree: Float64Array,
  edgeCount: number,
): Float64Array {
  const count = start.length;
  let rank: Float64Array = start;
  let next: Float64Array = new Float64Array(count);
  for (let iteration = 0; iteration < MAX_ITERATIONS; iteration++) {
    let dangling = 0;
    for (let node = 0; node < count; node++) if (outDegree[node] === 0) dangling += rank[node]!;
    next.fill((1 - DAMPING + DAMPING * dangling) / count);
    for (let edge = 0; edge < edgeCount; edge++) {
      const source = sources[edge]!;
      next[targets[edge]!]! += (DAMPING * rank[source]!) / outDegree[source]!;
    }
    let moved = 0;
    for (let node = 0; node < count; node++) moved += Math.abs(next[node]! - rank[node]!);
    [rank, next] = [next, rank];
    if (moved < SETTLED) break;
  }
  return rank;
}

/**
 * Ranks near the stored importance, so an update starts close to the answer; a graph without
 * stored values (all zero) starts uniform. Normalised to sum to 1 either way.
 */
function startingRanks(symbols: readonly [number, number][]): Float64Array {
  const ranks = new Float64Array(symbols.length);
  let total = 0;
  symbols.forEach(([, importance], index) => {
    ranks[index] = 1 + importance;
    total += 1 + importance;
  });
  for (let index = 0; index < ranks.length; index++) ranks[index]! /= total;
  return ranks;
}
