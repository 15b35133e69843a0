import { openDatabase, type SqliteDatabase } from '@toolmesh/core';
import type { EdgeKind, FileFacts, SymbolKind } from './facts.js';
import { SymbolRanker } from './importance.js';
import { splitIdentifierWords } from './name-words.js';
import { DEFERRED_INDEXES, type DeferredIndexGroup, GRAPH_MIGRATIONS } from './schema.js';

export interface StoredFile {
  id: number;
  path: string;
  language: string;
  hash: string;
}

export interface StoredSymbol {
  id: number;
  fileId: number;
  ordinal: number;
  parentId: number | null;
  name: string;
  qualifiedName: string;
  kind: SymbolKind;
  startLine: number;
  endLine: number;
  signature: string;
  doc: string;
  exported: boolean;
  importance: number;
}

export interface NewEdge {
  kind: EdgeKind;
  sourceId: number;
  targetId: number | null;
  /** What the code wrote: `this.rates.lookup`, `./money`, `Money`. */
  targetText: string;
  /** The simple name looked for (`lookup`), kept to find unresolved edges a new symbol may satisfy. */
  targetName: string;
  fileId: number;
  line: number;
  /** How the target was found: see resolve.ts. */
  resolution: string;
  confidence: number;
}

export interface ParsedFile {
  path: string;
  language: string;
  hash: string;
  bytes: number;
  lines: number;
  facts: FileFacts;
}

interface SymbolRow {
  id: number;
  file_id: number;
  ordinal: number;
  parent_id: number | null;
  name: string;
  qualified_name: string;
  kind: SymbolKind;
  start_line: number;
  end_line: number;
  signature: string;
  doc: string;
  exported: number;
  importance: number;
}

export function toSymbol(row: SymbolRow): StoredSymbol {
  return {
    id: row.id,
    fileId: row.file_id,
    ordinal: row.ordinal,
    parentId: row.parent_id,
    name: row.name,
    qualifiedName: row.qualified_name,
    kind: row.kind,
    startLine: row.start_line,
    endLine: row.end_line,
    signature: row.signature,
    doc: row.doc,
    exported: row.exported === 1,
    importance: row.importance,
  };
}

/** The JSON http_facts keeps of a file's facts (see syncHttpFacts); undefined when it has no HTTP part. */
function httpPartOf(facts: FileFacts): string | undefined {
  if (!facts.http) return undefined;
  return JSON.stringify({
    http: facts.http,
    imports: facts.imports,
    ...(facts.defaultExport !== undefined && { defaultExport: facts.defaultExport }),
  });
}

/** The SQLite file of one root's graph: files, symbols, edges and the search index. */
export class GraphStore {
  readonly db: SqliteDatabase;
  private readonly statements;
  private readonly ranker: SymbolRanker;

  constructor(file: string) {
    this.db = openDatabase(file, GRAPH_MIGRATIONS);
    const db = this.db;
    // The graph is derived from the files and rebuilt from them at will: a commit need not wait
    // for the disk (in WAL mode this risks the last commits on power loss, never corruption).
    db.pragma('synchronous = NORMAL');
    this.buildDeferredIndexes('beforeResolving');
    this.buildDeferredIndexes('afterResolving');
    this.ranker = new SymbolRanker(db);
    this.statements = {
      anyFile: db.prepare('SELECT 1 FROM files LIMIT 1').pluck(),
      fileByPath: db.prepare('SELECT id, path, language, hash FROM files WHERE path = ?'),
      allFiles: db.prepare('SELECT id, path, language, hash FROM files'),
      insertFile: db.prepare(
        `INSERT INTO files (path, language, hash, bytes, lines, facts, indexed_at) VALUES (@path, @language, @hash, @bytes, @lines, @facts, @now)
         ON CONFLICT(path) DO UPDATE SET language = @language, hash = @hash, bytes = @bytes, lines = @lines, facts = @facts, indexed_at = @now
         RETURNING id`,
      ),
      deleteSymbolsOfFile: db.prepare('DELETE FROM symbols WHERE file_id = ?'),
      deleteEdgesOfFile: db.prepare('DELETE FROM edges WHERE file_id = ?'),
      deleteImportsOfFile: db.prepare('DELETE FROM file_imports WHERE file_id = ?'),
      deleteFile: db.prepare('DELETE FROM files WHERE id = ?'),
      // Positional parameters: binding by name costs more than the insert itself at this volume.
      insertSymbol: db.prepare(
        `INSERT INTO symbols (file_id, ordinal, parent_id, name, qualified_name, kind, start_line, end_line, signature, doc, exported)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
      ),
      updateSymbol: db.prepare(
        `UPDATE symbols SET ordinal = @ordinal, parent_id = @parentId, name = @name, start_line = @startLine, end_line = @endLine,
         signature = @signature, doc = @doc, exported = @exported WHERE id = @id`,
      ),
      deleteSymbol: db.prepare('DELETE FROM symbols WHERE id = ?'),
      deleteSearch: db.prepare('DELETE FROM symbol_search WHERE rowid = ?'),
      insertSearch: db.prepare(
        'INSERT INTO symbol_search (rowid, name_words, qualified_name, signature, doc) VALUES (?, ?, ?, ?, ?)',
      ),
      insertEdge: db.prepare(
        `INSERT INTO edges (kind, source_id, target_id, target_text, target_name, file_id, line, resolution, confidence)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      insertImport: db.prepare('INSERT INTO file_imports (file_id, specifier, target_path) VALUES (?, ?, ?)'),
      symbolsOfFile: db.prepare('SELECT * FROM symbols WHERE file_id = ? ORDER BY ordinal'),
      symbolById: db.prepare('SELECT * FROM symbols WHERE id = ?'),
      fileNodeOf: db.prepare('SELECT id FROM symbols WHERE file_id = ? AND ordinal = -1'),
      topLevelByName: db.prepare(
        'SELECT * FROM symbols WHERE file_id = ? AND parent_id IS NULL AND name = ? AND ordinal >= 0',
      ),
      memberByName: db.prepare('SELECT * FROM symbols WHERE parent_id = ? AND name = ?'),
      basesOf: db.prepare(
        "SELECT target_id FROM edges WHERE source_id = ? AND kind IN ('EXTENDS', 'IMPLEMENTS') AND target_id IS NOT NULL",
      ),
      callablesNamed: db.prepare(
        "SELECT * FROM symbols WHERE name = ? AND kind IN ('function', 'class') AND parent_id IS NULL LIMIT 2",
      ),
      factsOf: db.prepare('SELECT facts FROM files WHERE id = ?'),
      filesTargetingSymbolsOf: db.prepare(
        'SELECT DISTINCT e.file_id AS id FROM edges e JOIN symbols s ON s.id = e.target_id WHERE s.file_id = ? AND e.file_id != ?',
      ),
      filesImporting: db.prepare('SELECT DISTINCT file_id AS id FROM file_imports WHERE target_path = ?'),
      // Bare ECMAScript specifiers name packages, which are not indexed; relative ones and
      // Python modules may be satisfied by a file that appears later.
      filesWithOpenImports: db.prepare(
        `SELECT DISTINCT i.file_id AS id FROM file_imports i JOIN files f ON f.id = i.file_id
         WHERE i.target_path IS NULL AND (i.specifier LIKE '.%' OR f.language = 'python')`,
      ),
      filesWithPackageImports: db.prepare(
        `SELECT DISTINCT i.file_id AS id FROM file_imports i JOIN files f ON f.id = i.file_id
         WHERE i.specifier NOT LIKE '.%' AND f.language IN ('typescript', 'tsx', 'javascript')`,
      ),
      filesWithUnresolvedName: db.prepare(
        'SELECT DISTINCT file_id AS id FROM edges WHERE target_id IS NULL AND target_name = ?',
      ),
      symbolNames: db.prepare("SELECT DISTINCT name FROM symbols WHERE kind != 'file'"),
      rowsChanged: db.prepare('SELECT total_changes()').pluck(),
      getMeta: db.prepare('SELECT value FROM meta WHERE key = ?'),
      setMeta: db.prepare(
        'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value',
      ),
    };
  }

  close(): void {
    this.db.close();
  }

  transaction<T>(work: () => T): T {
    return this.db.transaction(work).immediate();
  }

  /** True when no file is stored yet: the next full index writes every row. */
  isEmpty(): boolean {
    return this.statements.anyFile.get() === undefined;
  }

  /** Drops the indexes a bulk first index builds after its writes (schema.ts). */
  dropDeferredIndexes(): void {
    for (const indexes of Object.values(DEFERRED_INDEXES))
      for (const name of Object.keys(indexes)) this.db.exec(`DROP INDEX IF EXISTS ${name}`);
  }

  /** Builds the group's deferred indexes the store lacks; those present are left alone. */
  buildDeferredIndexes(group: DeferredIndexGroup): void {
    for (const [name, definition] of Object.entries(DEFERRED_INDEXES[group]))
      this.db.exec(`CREATE INDEX IF NOT EXISTS ${name} ON ${definition}`);
  }

  fileByPath(path: string): StoredFile | undefined {
    return this.statements.fileByPath.get(path) as StoredFile | undefined;
  }

  allFiles(): StoredFile[] {
    return this.statements.allFiles.all() as StoredFile[];
  }

  /**
   * Stores a parsed file and its symbols; its own edges are rebuilt by the resolver. A symbol
   * that is still there (same kind and qualified name) keeps its id, so the edges other files
   * have into it stay valid and an edit inside a body re-resolves that one file only.
   */
  putFile(file: ParsedFile, now = Date.now()): number {
    const { id } = this.statements.insertFile.get({
      path: file.path,
      language: file.language,
      hash: file.hash,
      bytes: file.bytes,
      lines: file.lines,
      facts: JSON.stringify(file.facts),
      now,
    }) as { id: number };
    this.clearEdgesOf(id);
    const previous = new Map<string, number[]>();
    for (const symbol of this.symbolsOf(id)) {
      const key = `${symbol.kind}\0${symbol.qualifiedName}`;
      previous.set(key, [...(previous.get(key) ?? []), symbol.id]);
    }
    const keep = (row: Record<string, unknown>): number => {
      const reused = previous.get(`${row.kind}\0${row.qualifiedName}`)?.shift();
      if (reused === undefined) return this.insertSymbol(row);
      this.statements.updateSymbol.run({ ...row, id: reused });
      this.statements.deleteSearch.run(reused);
      this.indexForSearch(reused, row);
      return reused;
    };
    keep({
      fileId: id,
      ordinal: -1,
      parentId: null,
      name: file.path.split('/').pop() ?? file.path,
      qualifiedName: file.path,
      kind: 'file',
      startLine: 1,
      endLine: file.lines,
      signature: file.path,
      doc: '',
      exported: 0,
    });
    const ids: number[] = [];
    file.facts.symbols.forEach((symbol, ordinal) => {
      const parentId = symbol.parent !== undefined ? (ids[symbol.parent] ?? null) : null;
      ids.push(
        keep({
          fileId: id,
          ordinal,
          parentId,
          name: symbol.name,
          qualifiedName: symbol.qualifiedName,
          kind: symbol.kind,
          startLine: symbol.startLine,
          endLine: symbol.endLine,
          signature: symbol.signature,
          doc: symbol.doc,
          exported: symbol.exported ? 1 : 0,
        }),
      );
    });
    for (const gone of previous.values())
      for (const symbolId of gone) this.statements.deleteSymbol.run(symbolId);
    return id;
  }

  private insertSymbol(row: Record<string, unknown>): number {
    const { id } = this.statements.insertSymbol.get(
      row.fileId,
      row.ordinal,
      row.parentId,
      row.name,
      row.qualifiedName,
      row.kind,
      row.startLine,
      row.endLine,
      row.signature,
      row.doc,
      row.exported,
    ) as { id: number };
    this.indexForSearch(id, row);
    return id;
  }

  private indexForSearch(id: number, row: Record<string, unknown>): void {
    this.statements.insertSearch.run(
      id,
      splitIdentifierWords(String(row.qualifiedName)),
      String(row.qualifiedName),
      String(row.signature),
      String(row.doc),
    );
  }

  private clearFile(fileId: number): void {
    this.statements.deleteEdgesOfFile.run(fileId);
    this.statements.deleteImportsOfFile.run(fileId);
    this.statements.deleteSymbolsOfFile.run(fileId);
  }

  removeFile(fileId: number): void {
    this.clearFile(fileId);
    this.statements.deleteFile.run(fileId);
  }

  clearEdgesOf(fileId: number): void {
    this.statements.deleteEdgesOfFile.run(fileId);
    this.statements.deleteImportsOfFile.run(fileId);
  }

  addEdge(edge: NewEdge): void {
    this.addEdgeOf(edge.fileId, edge);
  }

  /** An edge of the file `fileId` (the edge's own `fileId`, if any, is not read). */
  addEdgeOf(fileId: number, edge: Omit<NewEdge, 'fileId'>): void {
    this.statements.insertEdge.run(
      edge.kind,
      edge.sourceId,
      edge.targetId,
      edge.targetText,
      edge.targetName,
      fileId,
      edge.line,
      edge.resolution,
      edge.confidence,
    );
  }

  addImport(fileId: number, specifier: string, targetPath: string | null): void {
    this.statements.insertImport.run(fileId, specifier, targetPath);
  }

  factsOf(fileId: number): FileFacts {
    const row = this.statements.factsOf.get(fileId) as { facts: string } | undefined;
    return row
      ? (JSON.parse(row.facts) as FileFacts)
      : { symbols: [], imports: [], calls: [], typeUses: [], fields: {} };
  }

  /** The file's symbols by ordinal; index 0 is the file node (ordinal -1). */
  symbolsOf(fileId: number): StoredSymbol[] {
    return (this.statements.symbolsOfFile.all(fileId) as SymbolRow[]).map(toSymbol);
  }

  symbolById(id: number): StoredSymbol | undefined {
    const row = this.statements.symbolById.get(id) as SymbolRow | undefined;
    return row ? toSymbol(row) : undefined;
  }

  fileNodeOf(fileId: number): number | undefined {
    return (this.statements.fileNodeOf.get(fileId) as { id: number } | undefined)?.id;
  }

  topLevelNamed(fileId: number, name: string): StoredSymbol[] {
    return (this.statements.topLevelByName.all(fileId, name) as SymbolRow[]).map(toSymbol);
  }

  memberNamed(parentId: number, name: string): StoredSymbol | undefined {
    const row = this.statements.memberByName.get(parentId, name) as SymbolRow | undefined;
    return row ? toSymbol(row) : undefined;
  }

  basesOf(symbolId: number): number[] {
    return (this.statements.basesOf.all(symbolId) as { target_id: number }[]).map((row) => row.target_id);
  }

  /** Up to two top-level functions or classes of that name anywhere: one means unique. */
  callablesNamed(name: string): StoredSymbol[] {
    return (this.statements.callablesNamed.all(name) as SymbolRow[]).map(toSymbol);
  }

  /** Files whose edges may change when `fileId` (at `path`) changes, besides itself. */
  dependentsOf(fileId: number | undefined, path: string): number[] {
    const ids = new Set<number>();
    if (fileId !== undefined) {
      for (const row of this.statements.filesTargetingSymbolsOf.all(fileId, fileId) as { id: number }[])
        ids.add(row.id);
    }
    for (const row of this.statements.filesImporting.all(path) as { id: number }[]) ids.add(row.id);
    return [...ids];
  }

  /** Files with an import that found no file: a new file may be what they meant. */
  filesWithOpenImports(): number[] {
    return (this.statements.filesWithOpenImports.all() as { id: number }[]).map((row) => row.id);
  }

  /** ECMAScript files importing a package by name (or `#` path), which its package.json may map to a file. */
  filesWithPackageImports(): number[] {
    return (this.statements.filesWithPackageImports.all() as { id: number }[]).map((row) => row.id);
  }

  filesWithUnresolved(name: string): number[] {
    return (this.statements.filesWithUnresolvedName.all(name) as { id: number }[]).map((row) => row.id);
  }

  /**
   * The importance prior: PageRank over the uses between symbols (importance.ts). Give the
   * files whose edges changed since the last call, or nothing to read every edge again.
   */
  refreshImportance(changedFiles?: Iterable<number>): void {
    this.ranker.rank(changedFiles);
  }

  /** Every distinct symbol name, files aside. */
  symbolNames(): string[] {
    return this.statements.symbolNames.pluck().all() as string[];
  }

  /**
   * Changes whenever the database may have: rows written through this connection (a
   * transaction's rows count as they are written), or a commit by another connection.
   */
  revision(): string {
    return `${this.db.pragma('data_version', { simple: true })}:${this.statements.rowsChanged.get()}`;
  }

  meta(key: string): string | undefined {
    return (this.statements.getMeta.get(key) as { value: string } | undefined)?.value;
  }

  setMeta(key: string, value: string): void {
    this.statements.setMeta.run(key, value);
  }

  // HTTP routes and clients (routes/link-http.ts): statements made on first use, since most roots have none.
  private httpStatements?: ReturnType<GraphStore['prepareHttp']>;

  private prepareHttp() {
    const db = this.db;
    return {
      putHttp: db.prepare(
        'INSERT INTO http_facts (file_id, facts) VALUES (?, ?) ON CONFLICT(file_id) DO UPDATE SET facts = excluded.facts',
      ),
      dropHttp: db.prepare('DELETE FROM http_facts WHERE file_id = ?'),
      httpFiles: db.prepare(
        'SELECT h.file_id AS fileId, f.path, f.language, h.facts FROM http_facts h JOIN files f ON f.id = h.file_id ORDER BY f.path',
      ),
      clearLinks: db.prepare(
        'DELETE FROM edges WHERE resolution = ? AND file_id IN (SELECT file_id FROM http_facts)',
      ),
      relabel: db.prepare(
        `UPDATE edges SET resolution = @resolution WHERE source_id = @sourceId AND kind = 'CALLS' AND line = @line
         AND target_name = @targetName AND target_id IS NOT NULL`,
      ),
      rename: db.prepare('UPDATE symbols SET name = @name, qualified_name = @name WHERE id = @id'),
    };
  }

  private get http() {
    this.httpStatements ??= this.prepareHttp();
    return this.httpStatements;
  }

  /**
   * Copies the HTTP part of these files' facts (with the imports and default export that mounts
   * are resolved through) to http_facts, where the linker reads it without parsing whole facts.
   */
  syncHttpFacts(parsed: Iterable<[number, FileFacts]>): void {
    for (const [fileId, facts] of parsed) {
      const part = httpPartOf(facts);
      if (part === undefined) this.http.dropHttp.run(fileId);
      else this.http.putHttp.run(fileId, part);
    }
  }

  /** Every file with HTTP facts, as synced: `facts` is JSON of `{ http, imports, defaultExport }`. */
  httpFiles(): { fileId: number; path: string; language: string; facts: string }[] {
    return this.http.httpFiles.all() as { fileId: number; path: string; language: string; facts: string }[];
  }

  /** Drops the edges of one resolution (the client → route links) from the files with HTTP facts. */
  clearHttpEdges(resolution: string): void {
    this.http.clearLinks.run(resolution);
  }

  /** Relabels the bound CALLS edges from a symbol at a line to a name, e.g. a route's calls of its handler. */
  relabelCalls(sourceId: number, line: number, targetName: string, resolution: string): void {
    this.http.relabel.run({ sourceId, line, targetName, resolution });
  }

  /** Gives a symbol a new name (both its name and qualified name), searchable under it. */
  renameSymbol(id: number, name: string): void {
    const symbol = this.symbolById(id);
    if (!symbol) return;
    this.http.rename.run({ id, name });
    this.statements.deleteSearch.run(id);
    this.indexForSearch(id, { qualifiedName: name, signature: symbol.signature, doc: symbol.doc });
  }
}
