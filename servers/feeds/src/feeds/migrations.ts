/** Numbered schema migrations for core's openDatabase; times are Unix milliseconds. */
export const FEED_MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE feeds (
    id INTEGER PRIMARY KEY,
    url TEXT NOT NULL UNIQUE,
    title TEXT NOT NULL DEFAULT '',
    site_url TEXT,
    enabled INTEGER NOT NULL DEFAULT 1,
    interval_minutes INTEGER NOT NULL,
    ttl_minutes INTEGER,
    etag TEXT,
    last_modified TEXT,
    created_at INTEGER NOT NULL,
    last_fetched_at INTEGER,
    last_success_at INTEGER,
    next_fetch_at INTEGER NOT NULL DEFAULT 0,
    retry_until INTEGER,
    error_count INTEGER NOT NULL DEFAULT 0,
    last_error TEXT
  );
  CREATE TABLE articles (
    id INTEGER PRIMARY KEY,
    feed_id INTEGER NOT NULL REFERENCES feeds(id) ON DELETE CASCADE,
    dedup_key TEXT NOT NULL,
    guid TEXT,
    link TEXT,
    title TEXT NOT NULL,
    author TEXT,
    published_at INTEGER,
    updated_at INTEGER,
    first_seen_at INTEGER NOT NULL,
    sort_at INTEGER NOT NULL,
    excerpt TEXT NOT NULL,
    content TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    read INTEGER NOT NULL DEFAULT 0,
    saved INTEGER NOT NULL DEFAULT 0,
    UNIQUE (feed_id, dedup_key)
  );
  CREATE INDEX articles_by_date ON articles (sort_at DESC, id DESC);
  CREATE INDEX articles_by_feed ON articles (feed_id, sort_at DESC, id DESC);
  CREATE INDEX articles_unread ON articles (sort_at DESC, id DESC) WHERE read = 0;
  CREATE INDEX articles_saved ON articles (sort_at DESC, id DESC) WHERE saved = 1;
  -- External content: the index reads title, author and content from articles, so the text is stored once.
  CREATE VIRTUAL TABLE articles_fts USING fts5(title, author, content, content = 'articles', content_rowid = 'id',
    tokenize = 'unicode61 remove_diacritics 2');
  CREATE TRIGGER articles_fts_insert AFTER INSERT ON articles BEGIN
    INSERT INTO articles_fts (rowid, title, author, content) VALUES (new.id, new.title, new.author, new.content);
  END;
  CREATE TRIGGER articles_fts_update AFTER UPDATE OF title, author, content ON articles BEGIN
    INSERT INTO articles_fts (articles_fts, rowid, title, author, content)
      VALUES ('delete', old.id, old.title, old.author, old.content);
    INSERT INTO articles_fts (rowid, title, author, content) VALUES (new.id, new.title, new.author, new.content);
  END;
  CREATE TRIGGER articles_fts_delete AFTER DELETE ON articles BEGIN
    INSERT INTO articles_fts (articles_fts, rowid, title, author, content)
      VALUES ('delete', old.id, old.title, old.author, old.content);
  END;
  `,
];
