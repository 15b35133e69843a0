import type { Migration } from '@toolmesh/core';
import { countIndexedTickets, splitSearchIndexByWorkspace } from './search-index.js';
import { countTermsOfEveryIndex } from './term-stats.js';

/** Numbered schema versions for openDatabase; append only, never edit a shipped one. */
export const TICKET_MIGRATIONS: readonly Migration[] = [
  `
  CREATE TABLE tickets (
    id INTEGER PRIMARY KEY,
    workspace TEXT NOT NULL,
    number INTEGER NOT NULL,
    title TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    status TEXT NOT NULL,
    priority TEXT NOT NULL,
    assignee_agent TEXT,
    assignee_team TEXT,
    parent_id INTEGER REFERENCES tickets(id),
    author TEXT NOT NULL,
    output TEXT,
    error TEXT,
    version INTEGER NOT NULL DEFAULT 1,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    UNIQUE (workspace, number)
  );
  CREATE INDEX tickets_parent ON tickets(parent_id);
  CREATE INDEX tickets_listing ON tickets(workspace, status, priority, number);
  CREATE INDEX tickets_agent ON tickets(workspace, assignee_agent, priority);
  CREATE INDEX tickets_team ON tickets(workspace, assignee_team, priority);
  CREATE INDEX tickets_updated ON tickets(workspace, updated_at);
  CREATE TABLE ticket_labels (
    ticket_id INTEGER NOT NULL REFERENCES tickets(id),
    label TEXT NOT NULL,
    PRIMARY KEY (ticket_id, label)
  );
  CREATE TABLE ticket_collaborators (
    ticket_id INTEGER NOT NULL REFERENCES tickets(id),
    name TEXT NOT NULL,
    PRIMARY KEY (ticket_id, name)
  );
  CREATE TABLE comments (
    id INTEGER PRIMARY KEY,
    ticket_id INTEGER NOT NULL REFERENCES tickets(id),
    author TEXT NOT NULL,
    body TEXT NOT NULL,
    created_at TEXT NOT NULL
  );
  CREATE INDEX comments_ticket ON comments(ticket_id);
  -- One row per directed edge in its canonical direction; the inverse is read from the same row.
  CREATE TABLE relations (
    from_id INTEGER NOT NULL REFERENCES tickets(id),
    kind TEXT NOT NULL,
    to_id INTEGER NOT NULL REFERENCES tickets(id),
    created_at TEXT NOT NULL,
    PRIMARY KEY (from_id, kind, to_id)
  );
  CREATE INDEX relations_to ON relations(to_id, kind);
  CREATE TABLE pr_links (
    ticket_id INTEGER NOT NULL REFERENCES tickets(id),
    pr TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (ticket_id, pr)
  );
  CREATE TABLE events (
    id INTEGER PRIMARY KEY,
    ticket_id INTEGER NOT NULL REFERENCES tickets(id),
    author TEXT NOT NULL,
    kind TEXT NOT NULL,
    detail TEXT NOT NULL,
    created_at TEXT NOT NULL
  );
  CREATE INDEX events_ticket ON events(ticket_id, id);
  CREATE VIRTUAL TABLE tickets_fts USING fts5(title, description, comments, tokenize = 'unicode61');
  `,
  splitSearchIndexByWorkspace,
  countTermsOfEveryIndex,
  countIndexedTickets,
];
