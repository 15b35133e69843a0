import type { Migration } from '@toolmesh/core';
import { splitKeywordIndexByWorkspace } from './keyword-index.js';

/** Numbered schema versions for openDatabase; append only, never edit a shipped one. */
export const MEMORY_MIGRATIONS: readonly Migration[] = [
  `
  CREATE TABLE domains (
    id INTEGER PRIMARY KEY,
    workspace TEXT NOT NULL,
    name TEXT NOT NULL,
    creator TEXT NOT NULL,
    created_at TEXT NOT NULL,
    UNIQUE (workspace, name)
  );
  CREATE TABLE domain_writers (
    domain_id INTEGER NOT NULL REFERENCES domains(id),
    identity TEXT NOT NULL,
    PRIMARY KEY (domain_id, identity)
  );
  -- Facts, policies and observations. A row's body never changes: a change is a new row that
  -- supersedes it, so the history stays readable.
  CREATE TABLE memories (
    id INTEGER PRIMARY KEY,
    workspace TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('fact', 'policy', 'observation')),
    domain_id INTEGER NOT NULL REFERENCES domains(id),
    body TEXT NOT NULL,
    -- The body lower-cased with spacing and end punctuation folded: what "the same statement" means.
    body_key TEXT NOT NULL,
    author TEXT NOT NULL,
    source TEXT,
    valid_from TEXT NOT NULL,
    valid_until TEXT,
    recorded_at TEXT NOT NULL,
    status TEXT NOT NULL DEFAULT 'current' CHECK (status IN ('current', 'superseded', 'retired')),
    superseded_by INTEGER REFERENCES memories(id),
    change_reason TEXT,
    changed_by TEXT,
    changed_at TEXT
  );
  CREATE INDEX memories_listing ON memories(workspace, kind, status, domain_id);
  CREATE INDEX memories_domain ON memories(domain_id, kind, status);
  CREATE INDEX memories_successor ON memories(superseded_by);
  CREATE INDEX memories_same ON memories(domain_id, kind, status, body_key);
  CREATE VIRTUAL TABLE memories_fts USING fts5(
    body, content = 'memories', content_rowid = 'id', tokenize = 'porter unicode61'
  );
  CREATE TABLE memory_vectors (
    seq INTEGER PRIMARY KEY,
    memory_id INTEGER NOT NULL REFERENCES memories(id),
    workspace TEXT NOT NULL,
    provider TEXT NOT NULL,
    vector BLOB NOT NULL,
    UNIQUE (memory_id, provider)
  );
  CREATE INDEX memory_vectors_scan ON memory_vectors(workspace, provider, seq);
  CREATE TABLE notes (
    workspace TEXT NOT NULL,
    identity TEXT NOT NULL,
    body TEXT NOT NULL,
    revision INTEGER NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (workspace, identity)
  );
  CREATE TABLE hot_items (
    id INTEGER PRIMARY KEY,
    workspace TEXT NOT NULL,
    identity TEXT NOT NULL,
    domain TEXT NOT NULL,
    text TEXT NOT NULL,
    text_key TEXT NOT NULL,
    durable INTEGER NOT NULL,
    created_ms INTEGER NOT NULL,
    expires_ms INTEGER NOT NULL,
    recalls INTEGER NOT NULL DEFAULT 0
  );
  CREATE INDEX hot_items_identity ON hot_items(workspace, identity, id);
  CREATE INDEX hot_items_same ON hot_items(workspace, identity, text_key);
  CREATE INDEX hot_items_expiry ON hot_items(workspace, expires_ms);
  CREATE TABLE conflicts (
    id INTEGER PRIMARY KEY,
    workspace TEXT NOT NULL,
    domain_id INTEGER NOT NULL REFERENCES domains(id),
    older_id INTEGER NOT NULL REFERENCES memories(id),
    newer_id INTEGER NOT NULL REFERENCES memories(id),
    method TEXT NOT NULL,
    explanation TEXT NOT NULL,
    suggestion TEXT NOT NULL,
    status TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'resolved')),
    resolution TEXT,
    detected_by TEXT NOT NULL,
    detected_at TEXT NOT NULL,
    resolved_at TEXT,
    UNIQUE (older_id, newer_id)
  );
  CREATE INDEX conflicts_listing ON conflicts(workspace, status, id);
  `,
  splitKeywordIndexByWorkspace,
  // When a hot item was last said: a repeat after its statement was superseded is news, not an old note.
  'ALTER TABLE hot_items ADD COLUMN noted_ms INTEGER',
];
