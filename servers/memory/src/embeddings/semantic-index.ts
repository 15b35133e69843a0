import { errorMessage, type Logger, type SqliteDatabase } from '@toolmesh/core';
import type { EmbeddingProvider } from './provider.js';
import { VectorBlock } from './vector-block.js';

/** The vectors of one workspace, and the last stored row they include. */
interface WorkspaceVectors {
  block: VectorBlock;
  lastSeq: number;
}

export interface Coverage {
  provider: string;
  /** Counted only while rows may lack a vector. */
  embedded?: number;
  total?: number;
}

/** Rows embedded before a semantic search waits for the rest in the background instead. */
const CATCH_UP_LIMIT = 256;
// Each batch is one commit (one fsync): large enough that a re-embedding of 100,000 rows is not
// bound by the disk, small enough that requests get through between batches.
const BATCH = 256;

function asFloats(blob: Buffer): Float32Array {
  if (blob.byteOffset % 4 === 0) return new Float32Array(blob.buffer, blob.byteOffset, blob.byteLength / 4);
  return new Float32Array(new Uint8Array(blob).buffer);
}

/**
 * Vectors of facts, policies and observations in SQLite (one BLOB of float32 per row and provider),
 * searched by brute-force cosine over an in-memory block per workspace (see VectorBlock) that reads
 * only the rows added since its last search. Rows without a vector from the current provider — new ones, or all
 * of them after a change of provider — are embedded in the background, in batches, with progress.
 */
export class SemanticIndex {
  private readonly workspaces = new Map<string, WorkspaceVectors>();
  private background: Promise<void> | undefined;
  private lastProgress = 0;
  /** Every row up to this id has a vector from the provider: new rows are looked for above it only. */
  private embeddedThrough = 0;

  constructor(
    private readonly db: SqliteDatabase,
    readonly provider: EmbeddingProvider,
    private readonly log: Logger,
    private readonly onProgress?: (done: number, total: number) => void,
  ) {}

  coverage(workspace: string): Required<Coverage> {
    const { total } = this.db
      .prepare('SELECT count(*) AS total FROM memories WHERE workspace = ?')
      .get(workspace) as { total: number };
    const { embedded } = this.db
      .prepare('SELECT count(*) AS embedded FROM memory_vectors WHERE workspace = ? AND provider = ?')
      .get(workspace, this.provider.id) as { embedded: number };
    return { provider: this.provider.id, embedded, total };
  }

  /** Whether rows may lack a vector (embedding runs, or rows were added since it last finished). */
  get busy(): boolean {
    return this.background !== undefined || this.newestId() > this.embeddedThrough;
  }

  private newestId(): number {
    return (this.db.prepare('SELECT max(id) AS id FROM memories').get() as { id: number | null }).id ?? 0;
  }

  private pending(limit: number, workspace?: string): { id: number; workspace: string; body: string }[] {
    return this.db
      .prepare(
        `SELECT m.id, m.workspace, m.body FROM memories m
         WHERE m.id > @from AND ${workspace === undefined ? '1' : 'm.workspace = @workspace'}
           AND NOT EXISTS (SELECT 1 FROM memory_vectors v WHERE v.memory_id = m.id AND v.provider = @provider)
         ORDER BY m.id LIMIT @limit`,
      )
      .all({
        provider: this.provider.id,
        from: this.embeddedThrough,
        limit,
        ...(workspace !== undefined && { workspace }),
      }) as { id: number; workspace: string; body: string }[];
  }

  /** Embeds up to `limit` rows that lack a vector; returns how many it embedded. */
  async embedPending(limit: number, workspace?: string): Promise<number> {
    const newest = workspace === undefined ? this.newestId() : 0;
    const rows = this.pending(limit, workspace);
    if (rows.length === 0) {
      if (workspace === undefined) this.embeddedThrough = Math.max(this.embeddedThrough, newest);
      return 0;
    }
    const vectors = await this.provider.embed(rows.map((row) => row.body));
    const insert = this.db.prepare(
      'INSERT OR IGNORE INTO memory_vectors (memory_id, workspace, provider, vector) VALUES (?, ?, ?, ?)',
    );
    this.db.transaction(() => {
      rows.forEach((row, k) => {
        const vector = vectors[k] as Float32Array;
        insert.run(
          row.id,
          row.workspace,
          this.provider.id,
          Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength),
        );
      });
    })();
    // Rows below the last one of an unfiltered batch either had a vector or just got one.
    if (workspace === undefined) {
      this.embeddedThrough = Math.max(this.embeddedThrough, (rows.at(-1) as { id: number }).id);
    }
    return rows.length;
  }

  /** Starts embedding every row that lacks a vector, in the background (once at a time). */
  schedule(): Promise<void> {
    this.background ??= this.embedAll().finally(() => {
      this.background = undefined;
    });
    return this.background;
  }

  private async embedAll(): Promise<void> {
    const { total } = this.db.prepare('SELECT count(*) AS total FROM memories').get() as { total: number };
    let { done } = this.db
      .prepare('SELECT count(*) AS done FROM memory_vectors WHERE provider = ?')
      .get(this.provider.id) as { done: number };
    const started = done;
    try {
      for (;;) {
        const embedded = await this.embedPending(BATCH);
        if (embedded === 0) break;
        done += embedded;
        this.onProgress?.(done, total);
        if (total - started > CATCH_UP_LIMIT && Date.now() - this.lastProgress > 2000) {
          this.lastProgress = Date.now();
          this.log.info(`embedding with ${this.provider.id}: ${done}/${total}`);
        }
        // Let requests through between batches.
        await new Promise((resolve) => setImmediate(resolve));
      }
      if (total - started > CATCH_UP_LIMIT)
        this.log.info(`embedding with ${this.provider.id}: done, ${done}/${total}`);
    } catch (error) {
      this.log.warning(`embedding stopped, retried on the next write or search: ${errorMessage(error)}`);
    }
  }

  /**
   * Before a semantic search: a few rows without a vector (just written) are embedded now, so a
   * search finds what was just written; many (a provider change) are left to the background.
   */
  async catchUp(workspace: string): Promise<void> {
    if (!this.busy) return;
    void this.schedule();
    const backlog = this.pending(CATCH_UP_LIMIT + 1, workspace).length;
    if (backlog === 0) return;
    if (backlog <= CATCH_UP_LIMIT) await this.embedPending(CATCH_UP_LIMIT, workspace);
  }

  private refreshed(workspace: string): WorkspaceVectors | undefined {
    let cache = this.workspaces.get(workspace);
    const rows = this.db
      .prepare(
        'SELECT seq, memory_id, vector FROM memory_vectors WHERE workspace = ? AND provider = ? AND seq > ? ORDER BY seq',
      )
      .all(workspace, this.provider.id, cache?.lastSeq ?? 0) as {
      seq: number;
      memory_id: number;
      vector: Buffer;
    }[];
    if (rows.length === 0) return cache;
    if (!cache) {
      const dimensions = (rows[0] as { vector: Buffer }).vector.byteLength / 4;
      cache = { block: new VectorBlock(dimensions, Math.max(1024, rows.length)), lastSeq: 0 };
      this.workspaces.set(workspace, cache);
    }
    for (const row of rows) {
      cache.block.append(row.memory_id, asFloats(row.vector));
      cache.lastSeq = row.seq;
    }
    return cache;
  }

  /** The `k` rows of the workspace nearest to the query vector by cosine, best first. */
  nearest(workspace: string, query: Float32Array, k: number): { id: number; score: number }[] {
    const cache = this.refreshed(workspace);
    if (!cache || cache.block.count === 0 || query.length !== cache.block.dimensions) return [];
    const scores = cache.block.scores(query);
    const size = Math.min(k, scores.length);
    const topScores = new Float32Array(size).fill(-Infinity);
    const topRows = new Int32Array(size);
    let floor = -Infinity;
    for (let row = 0; row < scores.length; row++) {
      const score = scores[row] as number;
      if (score <= floor) continue;
      // Insertion into the sorted top list (descending); the last slot is the floor.
      let at = size - 1;
      while (at > 0 && (topScores[at - 1] as number) < score) {
        topScores[at] = topScores[at - 1] as number;
        topRows[at] = topRows[at - 1] as number;
        at--;
      }
      topScores[at] = score;
      topRows[at] = row;
      floor = topScores[size - 1] as number;
    }
    const result: { id: number; score: number }[] = [];
    for (let i = 0; i < size; i++) {
      if (topScores[i] === -Infinity) break;
      result.push({ id: cache.block.ids[topRows[i] as number] as number, score: topScores[i] as number });
    }
    return result;
  }
}
