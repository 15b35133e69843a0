/**
 * The graph's tables, as numbered migrations (openDatabase applies each once per file).
 * `files.facts` keeps what the extractor read, so a file whose dependency changed is
 * re-resolved without being parsed again. `symbol_search` is the FTS5 index; its
 * `name_words` column holds names pre-split on camelCase and snake_case.
 */
export const GRAPH_MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE files (
    id INTEGER PRIMARY KEY,
    path TEXT NOT NULL UNIQUE,
    language TEXT NOT NULL,
    hash TEXT NOT NULL,
    bytes INTEGER NOT NULL,
    lines INTEGER NOT NULL,
    facts TEXT NOT NULL,
    indexed_at INTEGER NOT NULL
  );
  CREATE TABLE symbols (
    id INTEGER PRIMARY KEY,
    file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    ordinal INTEGER NOT NULL,
    parent_id INTEGER,
    name TEXT NOT NULL,
    qualified_name TEXT NOT NULL,
    kind TEXT NOT NULL,
    start_line INTEGER NOT NULL,
    end_line INTEGER NOT NULL,
    signature TEXT NOT NULL,
    doc TEXT NOT NULL,
    exported INTEGER NOT NULL,
    importance REAL NOT NULL DEFAULT 0
  );
  CREATE INDEX symbols_name ON symbols(name);
  CREATE INDEX symbols_qualified_name ON symbols(qualified_name);
  CREATE INDEX symbols_file ON symbols(file_id, ordinal);
  CREATE INDEX symbols_parent ON symbols(parent_id, name);
  CREATE TABLE edges (
    id INTEGER PRIMARY KEY,
    kind TEXT NOT NULL,
    source_id INTEGER NOT NULL REFERENCES symbols(id) ON DELETE CASCADE,
    target_id INTEGER REFERENCES symbols(id) ON DELETE SET NULL,
    target_text TEXT NOT NULL,
    target_name TEXT NOT NULL,
    file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    line INTEGER NOT NULL,
    resolution TEXT NOT NULL,
    confidence REAL NOT NULL
  );
  CREATE INDEX edges_target ON edges(target_id, kind);
  CREATE INDEX edges_source ON edges(source_id, kind);
  CREATE INDEX edges_file ON edges(file_id);
  CREATE INDEX edges_unresolved_name ON edges(target_name) WHERE target_id IS NULL;
  CREATE TABLE file_imports (
    file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    specifier TEXT NOT NULL,
    target_path TEXT
  );
  CREATE INDEX file_imports_file ON file_imports(file_id);
  CREATE INDEX file_imports_target ON file_imports(target_path);
  CREATE VIRTUAL TABLE symbol_search USING fts5(name_words, qualified_name, signature, doc);
  CREATE TRIGGER symbols_search_delete AFTER DELETE ON symbols BEGIN
    DELETE FROM symbol_search WHERE rowid = old.id;
  END;
  CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
  `,
  // The HTTP part of a file's facts, kept apart so the route linker reads it without parsing every
  // file's facts. Files indexed before the route pass existed are parsed again (their hash is cleared).
  `
  CREATE TABLE http_facts (
    file_id INTEGER PRIMARY KEY REFERENCES files(id) ON DELETE CASCADE,
    facts TEXT NOT NULL
  );
  UPDATE files SET hash = '';
  `,
];

/**
 * Indexes a first index of an empty store builds once over its finished rows (a sort) instead
 * of updating them row by row (root-index.ts): the symbol lookups of the resolver before it
 * resolves, the edge indexes it does not read after it has written the edges. Every store is
 * given back those it lacks when opened, so a process stopped in between leaves none without.
 */
export const DEFERRED_INDEXES = {
  beforeResolving: {
    symbols_name: 'symbols(name)',
    symbols_qualified_name: 'symbols(qualified_name)',
    symbols_parent: 'symbols(parent_id, name)',
  },
  afterResolving: {
    edges_target: 'edges(target_id, kind)',
    edges_file: 'edges(file_id)',
    edges_unresolved_name: 'edges(target_name) WHERE target_id IS NULL',
  },
} as const satisfies Record<string, Record<string, string>>;

export type DeferredIndexGroup = keyof typeof DEFERRED_INDEXES;
