import { createHash, randomUUID } from 'node:crypto';
import path from 'node:path';
import { openDatabase, type PathGuard, type SqliteDatabase, ToolError } from '@toolmesh/core';
import { applyChanges, type PathState, readPathState } from './change-set.js';
import { sha256 } from './hash.js';
import { walkTree } from './walk.js';

export const CHECKPOINT_LIMITS = { paths: 100, keep: 50, bytes: 64 * 1024 * 1024 };

const MIGRATIONS = [
  `CREATE TABLE checkpoints (
     id TEXT PRIMARY KEY,
     seq INTEGER NOT NULL,
     root_hash TEXT NOT NULL,
     root TEXT NOT NULL,
     created_at TEXT NOT NULL,
     label TEXT,
     reason TEXT NOT NULL,
     paths TEXT NOT NULL,
     file_count INTEGER NOT NULL,
     total_bytes INTEGER NOT NULL
   );
   CREATE INDEX checkpoints_by_root ON checkpoints (root_hash, seq);
   CREATE TABLE blobs (sha256 TEXT PRIMARY KEY, content BLOB NOT NULL);
   CREATE TABLE checkpoint_entries (
     checkpoint_id TEXT NOT NULL REFERENCES checkpoints (id) ON DELETE CASCADE,
     path TEXT NOT NULL,
     kind TEXT NOT NULL CHECK (kind IN ('file', 'directory', 'absent')),
     mode INTEGER,
     size INTEGER,
     sha256 TEXT REFERENCES blobs (sha256),
     PRIMARY KEY (checkpoint_id, path)
   );`,
];

export interface CheckpointSummary {
  id: string;
  createdAt: string;
  label?: string;
  reason: 'manual' | 'pre-restore';
  root: string;
  paths: string[];
  fileCount: number;
  totalBytes: number;
}

export interface CheckpointEntry {
  path: string;
  kind: 'file' | 'directory' | 'absent';
  mode?: number;
  size?: number;
  sha256?: string;
}

interface CheckpointRow {
  id: string;
  root: string;
  created_at: string;
  label: string | null;
  reason: 'manual' | 'pre-restore';
  paths: string;
  file_count: number;
  total_bytes: number;
}

export function rootHash(root: string): string {
  return createHash('sha256').update(root).digest('hex').slice(0, 16);
}

function summary(row: CheckpointRow): CheckpointSummary {
  return {
    id: row.id,
    createdAt: row.created_at,
    ...(row.label !== null && { label: row.label }),
    reason: row.reason,
    root: row.root,
    paths: JSON.parse(row.paths) as string[],
    fileCount: row.file_count,
    totalBytes: row.total_bytes,
  };
}

/**
 * Snapshots of chosen paths, kept in SQLite in the data directory (never in the project),
 * partitioned by a hash of the root. File contents are stored once per distinct sha256.
 */
export class CheckpointStore {
  private opened: SqliteDatabase | undefined;

  // Opened on first use: a server that never checkpoints (a read-only sandbox) needs no
  // writable data directory.
  constructor(readonly file: string) {}

  private get db(): SqliteDatabase {
    this.opened ??= openDatabase(this.file, MIGRATIONS);
    return this.opened;
  }

  close(): void {
    this.opened?.close();
    this.opened = undefined;
  }

  /** Captures `paths` (files, folders with their contents, or paths that do not exist yet). */
  async create(
    guard: PathGuard,
    paths: readonly string[],
    /** `protect`: a checkpoint that pruning must keep (the one being restored). */
    options: { label?: string; reason?: 'manual' | 'pre-restore'; protect?: string } = {},
  ): Promise<CheckpointSummary> {
    if (paths.length === 0 || paths.length > CHECKPOINT_LIMITS.paths) {
      throw new ToolError(
        `A checkpoint takes 1 to ${CHECKPOINT_LIMITS.paths} paths, not ${paths.length}.`,
        'bad_arguments',
      );
    }
    const resolved = paths.map((input) => guard.resolve(input, 'read'));
    const root = resolved[0]!.root;
    const stray = resolved.find((entry) => entry.root !== root);
    if (stray) {
      throw new ToolError(
        `All paths of a checkpoint must lie in one root; ${stray.absolute} is in ${stray.root}, not ${root}. Make one checkpoint per root.`,
        'bad_arguments',
      );
    }
    const captured = new Map<string, PathState>();
    let totalBytes = 0;
    const tooLarge = () =>
      new ToolError(
        `The checkpoint would hold more than ${CHECKPOINT_LIMITS.bytes / 1024 / 1024} MiB: checkpoint fewer or smaller paths.`,
        'too_large',
      );
    const capture = async (absolute: string) => {
      // A file past what the checkpoint has left is refused by its size, before it is read.
      const state = await readPathState(absolute, {
        maxFileBytes: CHECKPOINT_LIMITS.bytes - totalBytes,
        tooLarge,
      });
      if (state.kind === 'file') {
        totalBytes += state.content.length;
        if (totalBytes > CHECKPOINT_LIMITS.bytes) throw tooLarge();
      }
      captured.set(path.relative(root, absolute).split(path.sep).join('/'), state);
      return state;
    };
    for (const entry of resolved) {
      const state = await capture(entry.absolute);
      if (state.kind !== 'directory') continue;
      for (const child of walkTree({
        root,
        start: entry.absolute,
        maxDepth: Number.POSITIVE_INFINITY,
        includeIgnored: false,
        exclude: (relative) => guard.isDenied(relative, 'read'),
      })) {
        if (child.type === 'file' || child.type === 'directory') await capture(child.absolute);
      }
    }

    const id = randomUUID();
    const hash = rootHash(root);
    const fileCount = [...captured.values()].filter((state) => state.kind === 'file').length;
    const relativePaths = resolved.map((entry) => entry.relative);
    const write = this.db.transaction(() => {
      const seq = (
        this.db.prepare('SELECT COALESCE(MAX(seq), 0) + 1 AS next FROM checkpoints').get() as { next: number }
      ).next;
      this.db
        .prepare(
          `INSERT INTO checkpoints (id, seq, root_hash, root, created_at, label, reason, paths, file_count, total_bytes)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(
          id,
          seq,
          hash,
          root,
          new Date().toISOString(),
          options.label ?? null,
          options.reason ?? 'manual',
          JSON.stringify(relativePaths),
          fileCount,
          totalBytes,
        );
      const insertBlob = this.db.prepare('INSERT OR IGNORE INTO blobs (sha256, content) VALUES (?, ?)');
      const insertEntry = this.db.prepare(
        'INSERT INTO checkpoint_entries (checkpoint_id, path, kind, mode, size, sha256) VALUES (?, ?, ?, ?, ?, ?)',
      );
      for (const [relative, state] of captured) {
        if (state.kind === 'file') {
          const digest = sha256(state.content);
          insertBlob.run(digest, state.content);
          insertEntry.run(id, relative, 'file', state.mode, state.content.length, digest);
        } else {
          insertEntry.run(
            id,
            relative,
            state.kind,
            state.kind === 'directory' ? state.mode : null,
            null,
            null,
          );
        }
      }
      this.prune(hash, options.protect);
    });
    write.immediate();
    return this.get(root, id);
  }

  private prune(hash: string, protect = ''): void {
    this.db
      .prepare(
        `DELETE FROM checkpoints WHERE root_hash = ? AND id != ? AND id NOT IN
           (SELECT id FROM checkpoints WHERE root_hash = ? ORDER BY seq DESC LIMIT ?)`,
      )
      .run(hash, protect, hash, CHECKPOINT_LIMITS.keep);
    this.db
      .prepare(
        'DELETE FROM blobs WHERE sha256 NOT IN (SELECT sha256 FROM checkpoint_entries WHERE sha256 IS NOT NULL)',
      )
      .run();
  }

  list(roots: readonly string[], limit: number): CheckpointSummary[] {
    const hashes = roots.map(rootHash);
    const rows = this.db
      .prepare(
        `SELECT * FROM checkpoints WHERE root_hash IN (${hashes.map(() => '?').join(',')}) ORDER BY seq DESC LIMIT ?`,
      )
      .all(...hashes, limit) as CheckpointRow[];
    return rows.map(summary);
  }

  /** A checkpoint of one of `roots`; a checkpoint of another root is as good as absent. */
  get(roots: string | readonly string[], id: string): CheckpointSummary {
    const allowed = typeof roots === 'string' ? [roots] : roots;
    const row = this.db.prepare('SELECT * FROM checkpoints WHERE id = ?').get(id) as
      | CheckpointRow
      | undefined;
    if (!row || !allowed.includes(row.root)) {
      throw new ToolError(
        `No checkpoint ${id} in these roots: list them with checkpoint_read action=list.`,
        'not_found',
      );
    }
    return summary(row);
  }

  entries(id: string): CheckpointEntry[] {
    const rows = this.db
      .prepare(
        'SELECT path, kind, mode, size, sha256 FROM checkpoint_entries WHERE checkpoint_id = ? ORDER BY path',
      )
      .all(id) as {
      path: string;
      kind: CheckpointEntry['kind'];
      mode: number | null;
      size: number | null;
      sha256: string | null;
    }[];
    return rows.map((row) => ({
      path: row.path,
      kind: row.kind,
      ...(row.mode !== null && { mode: row.mode }),
      ...(row.size !== null && { size: row.size }),
      ...(row.sha256 !== null && { sha256: row.sha256 }),
    }));
  }

  content(id: string, relative: string): Buffer | undefined {
    const row = this.db
      .prepare(
        `SELECT b.content FROM checkpoint_entries e JOIN blobs b ON b.sha256 = e.sha256
         WHERE e.checkpoint_id = ? AND e.path = ?`,
      )
      .get(id, relative) as { content: Buffer } | undefined;
    return row?.content;
  }

  /**
   * Puts every path of the checkpoint back as it was: files rewritten with their mode bits,
   * paths that did not exist removed, and files added since inside a checkpointed folder
   * removed. A pre-restore checkpoint of the same paths is taken first, so a restore can be undone.
   */
  async restore(
    guard: PathGuard,
    id: string,
  ): Promise<{ restored: CheckpointSummary; preRestore: CheckpointSummary; changed: number }> {
    const restored = this.get(guard.realRoots, id);
    const root = restored.root;
    // Read everything first: the pre-restore checkpoint below may prune old checkpoints.
    const recorded = new Map(this.entries(id).map((entry) => [entry.path, entry]));
    const targets = new Map<string, PathState>();
    for (const [relative, entry] of recorded) {
      const absolute = path.join(root, relative);
      guard.resolve(absolute, 'write');
      if (entry.kind === 'file') {
        targets.set(absolute, {
          kind: 'file',
          content: this.content(id, relative) ?? Buffer.alloc(0),
          mode: entry.mode ?? 0o644,
        });
      } else if (entry.kind === 'directory') {
        targets.set(absolute, { kind: 'directory', mode: entry.mode ?? 0o755 });
      } else {
        targets.set(absolute, { kind: 'absent' });
      }
    }
    const preRestore = await this.create(
      guard,
      restored.paths.map((relative) => path.join(root, relative)),
      { label: `before restoring ${id}`, reason: 'pre-restore', protect: id },
    );
    // What exists now under a checkpointed (or then absent) path but was not recorded goes away.
    for (const relative of this.entries(preRestore.id).map((entry) => entry.path)) {
      if (!recorded.has(relative)) targets.set(path.join(root, relative), { kind: 'absent' });
    }
    let changed = 0;
    for (const [absolute, target] of targets) {
      const current = await readPathState(absolute);
      const same =
        current.kind === target.kind &&
        (current.kind !== 'file' ||
          (target.kind === 'file' && current.mode === target.mode && current.content.equals(target.content)));
      if (same) targets.delete(absolute);
      else changed++;
    }
    await applyChanges(targets);
    return { restored, preRestore, changed };
  }
}
