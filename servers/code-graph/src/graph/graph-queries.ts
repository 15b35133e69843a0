import { EDGE_KINDS, type EdgeKind } from './facts.js';
import { type GraphStore, type StoredSymbol, toSymbol } from './graph-store.js';
import { OVERRIDE_RESOLUTION } from './implementations.js';
import { splitIdentifierWords } from './name-words.js';

export interface LocatedSymbol extends StoredSymbol {
  path: string;
}

export interface Callsite {
  path: string;
  line: number;
  resolution: string;
  confidence: number;
}

export interface CallerGroup {
  caller: LocatedSymbol;
  callsites: Callsite[];
}

export interface CalleeGroup {
  /** Undefined for a call that did not resolve to an indexed symbol. */
  callee?: LocatedSymbol;
  /** The call as written, e.g. `this.rates.lookup`. */
  text: string;
  callsites: Callsite[];
}

/** One edge from a symbol to a neighbour in a walk: the neighbour, the edge's kind and its line. */
export interface GraphStep {
  id: number;
  kind: EdgeKind;
  line: number;
  /** For usesOf: the edge was followed from an overriding method up to the method it overrides. */
  upward?: boolean;
}

export interface SearchHit extends LocatedSymbol {
  score: number;
}

export type IndexCounts = ReturnType<GraphQueries['count']>;

type Row = Parameters<typeof toSymbol>[0] & { path: string };

function located(row: Row): LocatedSymbol {
  return { ...toSymbol(row), path: row.path };
}

/** Read-only questions asked of one root's store. */
export class GraphQueries {
  private readonly statements;
  /** The last counts, the store revision they were read at and when: a client polls them while indexing. */
  private counted: { revision: string; at: number; counts: IndexCounts } | undefined;

  constructor(private readonly store: GraphStore) {
    const db = store.db;
    const symbolColumns = 's.*, f.path AS path';
    this.statements = {
      byQualified: db.prepare(
        `SELECT ${symbolColumns} FROM symbols s JOIN files f ON f.id = s.file_id WHERE s.qualified_name = ? AND s.kind != 'file' ORDER BY f.path, s.start_line`,
      ),
      byName: db.prepare(
        `SELECT ${symbolColumns} FROM symbols s JOIN files f ON f.id = s.file_id WHERE s.name = ? AND s.kind != 'file' ORDER BY f.path, s.start_line`,
      ),
      byNameAnyCase: db.prepare(
        `SELECT ${symbolColumns} FROM symbols s JOIN files f ON f.id = s.file_id
         WHERE (s.name = ? COLLATE NOCASE OR s.qualified_name = ? COLLATE NOCASE) AND s.kind != 'file' ORDER BY f.path, s.start_line LIMIT 200`,
      ),
      // Callsites alone: the callers' own columns (signature, doc) are read once per caller, not per callsite.
      callers: db.prepare(
        `SELECT e.source_id, e.line AS call_line, e.resolution, e.confidence, cf.path AS call_path
         FROM edges e JOIN files cf ON cf.id = e.file_id
         WHERE e.target_id = ? AND e.kind = 'CALLS' ORDER BY cf.path, e.line`,
      ),
      callees: db.prepare(
        `SELECT e.target_id, e.target_text, e.line AS call_line, e.resolution, e.confidence, cf.path AS call_path
         FROM edges e JOIN files cf ON cf.id = e.file_id WHERE e.source_id = ? AND e.kind = 'CALLS' ORDER BY e.line`,
      ),
      dependencies: db.prepare(
        `SELECT DISTINCT e.kind AS relation, e.target_id AS id FROM edges e
         WHERE e.source_id = ? AND e.target_id IS NOT NULL AND e.target_id != e.source_id AND e.kind IN ('CALLS', 'REFERENCES', 'EXTENDS', 'IMPLEMENTS')
         ORDER BY e.kind, e.line`,
      ),
      located: db.prepare(
        `SELECT ${symbolColumns} FROM symbols s JOIN files f ON f.id = s.file_id WHERE s.id = ?`,
      ),
      search: db.prepare(
        `SELECT ${symbolColumns}, bm25(symbol_search, 8.0, 4.0, 1.0, 0.5) AS rank
         FROM symbol_search JOIN symbols s ON s.id = symbol_search.rowid JOIN files f ON f.id = s.file_id
         WHERE symbol_search MATCH ? AND s.kind != 'file' ORDER BY rank LIMIT 300`,
      ),
      filesByLanguage: db.prepare(
        'SELECT language, count(*) AS count, sum(lines) AS lines FROM files GROUP BY language',
      ),
      symbolsByKind: db.prepare(
        "SELECT kind, count(*) AS count FROM symbols WHERE kind != 'file' GROUP BY kind",
      ),
      // One pass over the edges gives the counts by kind, by resolution and the unresolved calls.
      edgesByKindAndResolution: db.prepare(
        `SELECT kind, resolution, count(*) AS count, sum(target_id IS NULL) AS unresolved FROM edges
         GROUP BY resolution, kind ORDER BY resolution, kind`,
      ),
      symbolsByLanguage: db.prepare(
        "SELECT f.language, count(*) AS count FROM symbols s JOIN files f ON f.id = s.file_id WHERE s.kind != 'file' GROUP BY f.language",
      ),
      // Counted per file on the file index first: joining each edge to its file costs four times more.
      edgesByLanguage: db.prepare(
        `SELECT f.language, sum(e.count) AS count FROM (SELECT file_id, count(*) AS count FROM edges GROUP BY file_id) e
         JOIN files f ON f.id = e.file_id GROUP BY f.language`,
      ),
      mapSymbols: db.prepare(
        `SELECT ${symbolColumns} FROM symbols s JOIN files f ON f.id = s.file_id
         WHERE s.kind != 'file' AND (f.path = ? OR f.path LIKE ? ESCAPE '\\' OR ? = '')
         ORDER BY s.importance DESC, s.exported DESC, f.path, s.start_line LIMIT 20000`,
      ),
      fileImportance: db.prepare(
        `SELECT f.path, (SELECT importance FROM symbols WHERE file_id = f.id AND ordinal = -1) AS imported,
                (SELECT coalesce(sum(importance), 0) FROM symbols WHERE file_id = f.id AND ordinal >= 0) AS used
         FROM files f WHERE (f.path = ? OR f.path LIKE ? ESCAPE '\\' OR ? = '')`,
      ),
      locatedMany: db.prepare(
        `SELECT ${symbolColumns} FROM json_each(?) j JOIN symbols s ON s.id = j.value JOIN files f ON f.id = s.file_id`,
      ),
      usesOf: db.prepare(
        `SELECT e.source_id AS id, e.kind, e.line, 0 AS upward FROM edges e
         WHERE e.target_id = @id AND e.kind IN ('CALLS', 'REFERENCES', 'EXTENDS', 'IMPLEMENTS') AND e.source_id != e.target_id
         UNION ALL
         SELECT e.target_id, e.kind, e.line, 1 FROM edges e
         WHERE e.source_id = @id AND e.kind = 'IMPLEMENTS' AND e.resolution = @override AND e.target_id IS NOT NULL`,
      ),
      importsInto: db.prepare(
        `SELECT e.source_id AS id, s.file_id AS fileId, e.line, e.target_text AS specifier FROM edges e
         JOIN symbols s ON s.id = e.source_id WHERE e.target_id = ? AND e.kind = 'IMPORTS' ORDER BY e.id`,
      ),
      callsOutOf: db.prepare(
        `SELECT e.target_id AS id, e.kind, e.line FROM edges e
         WHERE e.source_id = @id AND e.kind = 'CALLS' AND e.target_id IS NOT NULL AND e.target_id != e.source_id
         UNION ALL
         SELECT e.source_id, e.kind, e.line FROM edges e WHERE e.target_id = @id AND e.kind = 'IMPLEMENTS' AND e.resolution = @override`,
      ),
      callsInto: db.prepare(
        `SELECT e.source_id AS id, e.kind, e.line FROM edges e
         WHERE e.target_id = @id AND e.kind = 'CALLS' AND e.source_id != e.target_id
         UNION ALL
         SELECT e.target_id, e.kind, e.line FROM edges e
         WHERE e.source_id = @id AND e.kind = 'IMPLEMENTS' AND e.resolution = @override AND e.target_id IS NOT NULL`,
      ),
      unresolvedCallsNamed: db.prepare(
        `SELECT e.source_id AS id, e.target_text AS text, e.target_name AS name, e.line FROM edges e
         WHERE e.target_id IS NULL AND e.kind = 'CALLS' AND e.resolution != 'external'
           AND e.target_name IN (SELECT value FROM json_each(?)) ORDER BY e.id`,
      ),
    };
  }

  /** `Money.multiplyByRate` by qualified name, else `multiplyByRate` by name, else either ignoring case. */
  findSymbols(name: string): LocatedSymbol[] {
    const qualified = this.statements.byQualified.all(name) as Row[];
    if (qualified.length > 0) return qualified.map(located);
    const plain = this.statements.byName.all(name) as Row[];
    if (plain.length > 0) return plain.map(located);
    return (this.statements.byNameAnyCase.all(name, name) as Row[]).map(located);
  }

  symbol(id: number): LocatedSymbol | undefined {
    const row = this.statements.located.get(id) as Row | undefined;
    return row ? located(row) : undefined;
  }

  /** What a symbol calls, references, extends or implements, once per target and relation. */
  dependencies(sourceId: number): { relation: string; symbol: LocatedSymbol }[] {
    const rows = this.statements.dependencies.all(sourceId) as { relation: string; id: number }[];
    return rows.flatMap((row) => {
      const symbol = this.symbol(row.id);
      return symbol && symbol.kind !== 'file' ? [{ relation: row.relation, symbol }] : [];
    });
  }

  /** Every CALLS edge into `targetId`, grouped by the calling symbol, callsites in file order. */
  callers(targetId: number): CallerGroup[] {
    const groups = new Map<number, CallerGroup>();
    const rows = this.statements.callers.all(targetId) as {
      source_id: number;
      call_line: number;
      resolution: string;
      confidence: number;
      call_path: string;
    }[];
    for (const row of rows) {
      let group = groups.get(row.source_id);
      if (!group) {
        const caller = this.symbol(row.source_id);
        if (!caller) continue;
        group = { caller, callsites: [] };
        groups.set(row.source_id, group);
      }
      group.callsites.push({
        path: row.call_path,
        line: row.call_line,
        resolution: row.resolution,
        confidence: row.confidence,
      });
    }
    return [...groups.values()];
  }

  /** Every call made inside `sourceId`, grouped by callee (unresolved calls by their text). */
  callees(sourceId: number): CalleeGroup[] {
    const groups = new Map<string, CalleeGroup>();
    const rows = this.statements.callees.all(sourceId) as {
      target_id: number | null;
      target_text: string;
      call_line: number;
      resolution: string;
      confidence: number;
      call_path: string;
    }[];
    for (const row of rows) {
      const key = row.target_id !== null ? `#${row.target_id}` : row.target_text;
      let group = groups.get(key);
      if (!group) {
        const callee = row.target_id !== null ? this.symbol(row.target_id) : undefined;
        group = callee
          ? { callee, text: row.target_text, callsites: [] }
          : { text: row.target_text, callsites: [] };
        groups.set(key, group);
      }
      group.callsites.push({
        path: row.call_path,
        line: row.call_line,
        resolution: row.resolution,
        confidence: row.confidence,
      });
    }
    return [...groups.values()];
  }

  /**
   * BM25 over split names, qualified names, signatures and docs, plus an exact-name boost and
   * a prior from how often the symbol is used. Whole words first; prefixes only when whole
   * words find nothing, so `rate` does not drown in `generate`-like noise.
   */
  search(query: string, limit: number): SearchHit[] {
    const words = splitIdentifierWords(query).split(' ').filter(Boolean);
    if (words.length === 0) return [];
    let rows = this.statements.search.all(words.map((word) => `"${word}"`).join(' OR ')) as (Row & {
      rank: number;
    })[];
    if (rows.length === 0) {
      rows = this.statements.search.all(words.map((word) => `"${word}"*`).join(' OR ')) as (Row & {
        rank: number;
      })[];
    }
    const wanted = query.trim().toLowerCase();
    return rows
      .map((row) => {
        const exact = row.name.toLowerCase() === wanted || row.qualified_name.toLowerCase() === wanted;
        const score = -row.rank + (exact ? 10 : 0) + Math.log1p(row.importance) * 0.75;
        return { ...located(row), score: Math.round(score * 1000) / 1000 };
      })
      .sort((a, b) => b.score - a.score)
      .slice(0, limit);
  }

  /**
   * Counts of files, symbols and edges, read again once the store has changed. Each count scans
   * every edge, so while the graph is being written (`maxAgeMs` given) counts that old are kept.
   */
  status(maxAgeMs = 0): IndexCounts {
    const revision = this.store.revision();
    const now = Date.now();
    const counted = this.counted;
    if (counted && (counted.revision === revision || now - counted.at < maxAgeMs)) return counted.counts;
    const counts = this.count();
    this.counted = { revision, at: now, counts };
    return counts;
  }

  private count() {
    const edges = this.statements.edgesByKindAndResolution.all() as {
      kind: EdgeKind;
      resolution: string;
      count: number;
      unresolved: number;
    }[];
    const byKind = Object.fromEntries(EDGE_KINDS.map((kind) => [kind, 0])) as Record<EdgeKind, number>;
    const byResolution: Record<string, Partial<Record<EdgeKind, number>>> = {};
    const calls = { count: 0, unresolved: 0, external: 0 };
    for (const edge of edges) {
      byKind[edge.kind] = (byKind[edge.kind] ?? 0) + edge.count;
      if (edge.kind !== 'CONTAINS')
        byResolution[edge.resolution] = { ...byResolution[edge.resolution], [edge.kind]: edge.count };
      if (edge.kind !== 'CALLS') continue;
      calls.count += edge.count;
      if (edge.resolution === 'external') calls.external += edge.count;
      else calls.unresolved += edge.unresolved;
    }
    const languages = this.statements.filesByLanguage.all() as {
      language: string;
      count: number;
      lines: number;
    }[];
    const symbolsByLanguage = new Map(
      (this.statements.symbolsByLanguage.all() as { language: string; count: number }[]).map((row) => [
        row.language,
        row.count,
      ]),
    );
    const edgesByLanguage = new Map(
      (this.statements.edgesByLanguage.all() as { language: string; count: number }[]).map((row) => [
        row.language,
        row.count,
      ]),
    );
    return {
      files: languages.reduce((sum, row) => sum + row.count, 0),
      languages: languages.map((row) => ({
        language: row.language,
        files: row.count,
        lines: row.lines,
        symbols: symbolsByLanguage.get(row.language) ?? 0,
        edges: edgesByLanguage.get(row.language) ?? 0,
      })),
      symbolsByKind: Object.fromEntries(
        (this.statements.symbolsByKind.all() as { kind: string; count: number }[]).map((row) => [
          row.kind,
          row.count,
        ]),
      ),
      edgesByKind: byKind,
      calls: calls.count,
      unresolvedCalls: calls.unresolved,
      externalCalls: calls.external,
      edgesByResolution: byResolution,
    };
  }

  /** Symbols under a path prefix (a file or folder; '' for all), most used first. */
  mapSymbols(prefix: string): LocatedSymbol[] {
    const like = `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}/%`;
    return (this.statements.mapSymbols.all(prefix, like, prefix) as Row[]).map(located);
  }

  /** Files under a prefix with how much the rest of the root uses them. */
  fileImportance(prefix: string): { path: string; weight: number }[] {
    const like = `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}/%`;
    return (
      this.statements.fileImportance.all(prefix, like, prefix) as {
        path: string;
        imported: number;
        used: number;
      }[]
    )
      .map((row) => ({ path: row.path, weight: (row.imported ?? 0) * 2 + row.used }))
      .sort((a, b) => b.weight - a.weight || a.path.localeCompare(b.path));
  }
  /** Symbols by id, with their paths, in no particular order. */
  locatedMany(ids: readonly number[]): LocatedSymbol[] {
    return (this.statements.locatedMany.all(JSON.stringify(ids)) as Row[]).map(located);
  }

  /**
   * The edges along which a change to `id` spreads: its callers, type users, subclasses and
   * overriding methods (each the edge's source), and, `upward`, the base methods it overrides
   * (whose callers may be dispatched to it).
   */
  usesOf(id: number): GraphStep[] {
    return (
      this.statements.usesOf.all({ id, override: OVERRIDE_RESOLUTION }) as (Omit<GraphStep, 'upward'> & {
        upward: number;
      })[]
    ).map((row) => ({ ...row, upward: row.upward === 1 }));
  }

  /** The IMPORTS edges into a file node: each importing file's node and the specifier it wrote. */
  importsInto(fileNodeId: number): { id: number; fileId: number; line: number; specifier: string }[] {
    return this.statements.importsInto.all(fileNodeId) as {
      id: number;
      fileId: number;
      line: number;
      specifier: string;
    }[];
  }

  /** Where running `id` can go next: what it calls, and (IMPLEMENTS) the methods overriding it. */
  callsOutOf(id: number): GraphStep[] {
    return this.statements.callsOutOf.all({ id, override: OVERRIDE_RESOLUTION }) as GraphStep[];
  }

  /** The reverse of callsOutOf: callers of `id`, and (IMPLEMENTS) the base methods it overrides. */
  callsInto(id: number): GraphStep[] {
    return this.statements.callsInto.all({ id, override: OVERRIDE_RESOLUTION }) as GraphStep[];
  }

  /** Calls bound to nothing whose callee name is one of `names`, e.g. `service.place` for `place`. */
  unresolvedCallsNamed(names: readonly string[]): { id: number; text: string; name: string; line: number }[] {
    return this.statements.unresolvedCallsNamed.all(JSON.stringify(names)) as {
      id: number;
      text: string;
      name: string;
      line: number;
    }[];
  }
}
