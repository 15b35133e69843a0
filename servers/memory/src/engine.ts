import { type Logger, NEWEST_FIRST_NOTE, ToolError } from '@toolmesh/core';
import type { EmbeddingProvider } from './embeddings/provider.js';
import { type Coverage, SemanticIndex } from './embeddings/semantic-index.js';
import {
  DEFAULT_HOT_LIMITS,
  type HotItem,
  type HotLimits,
  type HotMemory,
  ttlMilliseconds,
} from './hot/hot-memory.js';
import { ConflictLog } from './store/conflict-log.js';
import { type HarmonizePass, harmonize } from './store/harmonize.js';
import type { KeywordHits } from './store/keyword-index.js';
import { words } from './store/keyword-query.js';
import { DOMAIN_NAME, type MemoryStore, statementKey } from './store/memory-store.js';
import type { Actor, Memory, MemoryFilter, NewMemory } from './store/types.js';

export const SEARCH_MODES = ['keyword', 'semantic', 'hybrid'] as const;
export type SearchMode = (typeof SEARCH_MODES)[number];

export interface SearchHit {
  memory: Memory;
  score: number;
  /** Which rankings found it. */
  via: ('keyword' | 'semantic')[];
}

export interface SearchResult {
  hits: SearchHit[];
  /** The caller's live hot items that share words with the query (each counts as a recall). */
  hot: HotItem[];
  semantic?: Coverage;
  warnings: string[];
  /** Set when the keyword hits are newest first rather than ranked, and why. */
  note?: string;
}

export interface MemoryEngineOptions {
  store: MemoryStore;
  hot: HotMemory;
  embedder: EmbeddingProvider;
  log: Logger;
  hotLimits?: HotLimits;
  /** Recalls after which consolidate_memory promotes a hot item that was not marked durable. */
  promoteAfterRecalls?: number;
  onEmbeddingProgress?: (done: number, total: number) => void;
}

/** Reciprocal-rank fusion's constant: damps the weight of the very first ranks. */
const RRF_K = 60;
const HOT_HITS = 10;

const rowId = (memory: Memory) => Number(memory.id.slice(2));
const hotWords = (text: string) => new Set(words(text).map((word) => word.replace(/s$/, '')));

/** The memory server's engine: long-term store, hot memory, semantic index and conflicts together. */
export class MemoryEngine {
  readonly store: MemoryStore;
  readonly hot: HotMemory;
  readonly semantic: SemanticIndex;
  readonly conflicts: ConflictLog;
  readonly hotLimits: HotLimits;
  private readonly promoteAfterRecalls: number;
  private readonly embedder: EmbeddingProvider;

  constructor(options: MemoryEngineOptions) {
    this.store = options.store;
    this.hot = options.hot;
    this.embedder = options.embedder;
    this.hotLimits = options.hotLimits ?? DEFAULT_HOT_LIMITS;
    this.promoteAfterRecalls = options.promoteAfterRecalls ?? 2;
    this.semantic = new SemanticIndex(
      options.store.db,
      options.embedder,
      options.log,
      options.onEmbeddingProgress,
    );
    this.conflicts = new ConflictLog(options.store);
  }

  /** Embeds, in the background, whatever lacks a vector from the current provider. */
  startEmbedding(): Promise<void> {
    return this.semantic.schedule();
  }

  async shutdown(): Promise<void> {
    await this.hot.close();
    this.store.shutdown();
  }

  propose(actor: Actor, memory: NewMemory): Memory {
    const stored = this.store.propose(actor, memory);
    void this.semantic.schedule();
    return stored;
  }

  supersede(
    actor: Actor,
    kind: 'fact' | 'policy',
    ref: string,
    change: { reason: string; body?: string; by?: string; validFrom?: string },
  ): { old: Memory; successor: Memory } {
    const result = this.store.supersede(actor, kind, ref, change);
    void this.semantic.schedule();
    return result;
  }

  // ── search ─────────────────────────────────────────────────────────────────

  async search(
    actor: Actor,
    request: { query: string; mode: SearchMode; filter: MemoryFilter; limit: number; includeHot: boolean },
  ): Promise<SearchResult> {
    const { workspace } = actor;
    const depth = Math.max(request.limit * 3, 50);
    const keyword: KeywordHits =
      request.mode === 'semantic'
        ? { order: 'ranked', hits: [] }
        : this.store.keywordSearch(workspace, request.query, request.filter, depth);
    const warnings: string[] = [];
    let semantic: { id: number; score: number }[] = [];
    if (request.mode === 'semantic') {
      semantic = await this.semanticSearch(workspace, request.query, request.filter, depth);
    } else if (request.mode === 'hybrid') {
      // An embeddings endpoint that is down leaves hybrid search with its keyword half, said so.
      try {
        semantic = await this.semanticSearch(workspace, request.query, request.filter, depth);
      } catch (error) {
        if (!(error instanceof ToolError)) throw error;
        warnings.push(`keyword ranking only: ${error.message}`);
      }
    }
    const fused = new Map<number, { score: number; via: ('keyword' | 'semantic')[] }>();
    const add = (list: { id: number; score: number }[], via: 'keyword' | 'semantic') => {
      list.forEach((hit, rank) => {
        const entry = fused.get(hit.id) ?? { score: 0, via: [] };
        entry.score += request.mode === 'hybrid' ? 1 / (RRF_K + rank + 1) : hit.score;
        entry.via.push(via);
        fused.set(hit.id, entry);
      });
    };
    add(keyword.hits, 'keyword');
    add(semantic, 'semantic');
    const ranked = [...fused].sort((a, b) => b[1].score - a[1].score).slice(0, request.limit);
    const memories = this.store.byIds(
      workspace,
      ranked.map(([id]) => id),
      request.filter,
    );
    const hits = memories.map((memory) => {
      const entry = fused.get(rowId(memory)) as { score: number; via: ('keyword' | 'semantic')[] };
      return { memory, score: entry.score, via: entry.via };
    });
    const result: SearchResult = { hits, hot: [], warnings };
    if (keyword.order === 'newest') {
      result.note = request.mode === 'hybrid' ? `keyword half: ${NEWEST_FIRST_NOTE}` : NEWEST_FIRST_NOTE;
    }
    if (request.mode !== 'keyword') {
      // Counting is only worth it while rows may lack a vector; otherwise everything is embedded.
      result.semantic = this.semantic.busy
        ? this.semantic.coverage(workspace)
        : { provider: this.semantic.provider.id };
      if (
        result.semantic.embedded !== undefined &&
        result.semantic.total !== undefined &&
        result.semantic.embedded < result.semantic.total
      ) {
        result.warnings.push(
          `semantic ranking covers ${result.semantic.embedded} of ${result.semantic.total} entries; the rest are being embedded with ${result.semantic.provider}.`,
        );
      }
    }
    if (request.includeHot) {
      try {
        result.hot = await this.recallHot(actor, request.query);
      } catch (error) {
        result.warnings.push((error as Error).message);
      }
    }
    return result;
  }

  private async semanticSearch(
    workspace: string,
    query: string,
    filter: MemoryFilter,
    depth: number,
  ): Promise<{ id: number; score: number }[]> {
    await this.semantic.catchUp(workspace);
    const [vector] = await this.embedder.embed([query]);
    if (!vector || vector.every((x) => x === 0)) return [];
    // Filters are applied after ranking: look deeper until enough rows pass, or none are left.
    for (let k = depth * 2; ; k *= 4) {
      const near = this.semantic.nearest(workspace, vector, k);
      const passing = this.store.passing(
        workspace,
        near.map((hit) => hit.id),
        filter,
      );
      const kept = near.filter((hit) => passing.has(hit.id));
      if (kept.length >= depth || near.length < k) return kept.slice(0, depth);
    }
  }

  private async recallHot(actor: Actor, query: string): Promise<HotItem[]> {
    const wanted = hotWords(query);
    const items = await this.hot.list(actor);
    const scored = items
      .map((item) => ({ item, shared: [...hotWords(item.text)].filter((word) => wanted.has(word)).length }))
      .filter((entry) => entry.shared > 0)
      .sort((a, b) => b.shared - a.shared)
      .slice(0, HOT_HITS)
      .map((entry) => entry.item);
    await this.hot.recall(actor.workspace, scored);
    return scored.map((item) => ({ ...item, recalls: item.recalls + 1 }));
  }

  // ── hot memory ─────────────────────────────────────────────────────────────

  /** Adds a hot item, or counts a recall of the same live one (same text, ignoring case and spacing). */
  async remember(
    actor: Actor,
    note: { text: string; ttlSeconds?: number; durable: boolean; domain: string },
  ): Promise<{ item: HotItem; repeated: boolean; evicted: string[] }> {
    const ttlMs = ttlMilliseconds(note.ttlSeconds, this.hotLimits);
    if (!DOMAIN_NAME.test(note.domain)) {
      throw new ToolError(
        `domain ${JSON.stringify(note.domain)} is not a domain name: use 1-64 letters, digits, ".", "_", "/" or "-".`,
        'bad_domain',
      );
    }
    return this.hot.add(actor, {
      text: note.text,
      key: statementKey(note.text),
      domain: note.domain,
      durable: note.durable,
      ttlMs,
    });
  }

  /**
   * The "sleep" pass over the workspace's hot memory: drops expired items, and turns durable or
   * repeatedly recalled ones into facts (by their author, in their domain), unless a current fact
   * already states the same (the item is merged into it) or a fact stating it was superseded since
   * the item was noted (the item is out of date). Either way it leaves hot memory.
   */
  async consolidate(actor: Actor): Promise<{
    expired: number;
    promoted: { item: HotItem; fact: Memory }[];
    alreadyKnown: { item: HotItem; fact: Memory }[];
    outdated: { item: HotItem; fact: Memory }[];
    kept: number;
  }> {
    const { live, expired } = await this.hot.sweep(actor.workspace);
    const outcomes = { promoted: [], alreadyKnown: [], outdated: [] } as Record<
      'promoted' | 'alreadyKnown' | 'outdated',
      { item: HotItem; fact: Memory }[]
    >;
    const leaving: HotItem[] = [];
    for (const item of live) {
      if (!item.durable && item.recalls < this.promoteAfterRecalls) continue;
      const { outcome, fact } = this.store.promoteStatement(
        { workspace: actor.workspace, identity: item.identity },
        { domain: item.domain, body: item.text, source: `hot:${item.id}`, notedAt: item.notedAt },
      );
      outcomes[outcome].push({ item, fact });
      leaving.push(item);
    }
    if (outcomes.promoted.length > 0) void this.semantic.schedule();
    await this.hot.remove(actor.workspace, leaving);
    return {
      expired,
      ...outcomes,
      kept: live.length - leaving.length,
    };
  }

  // ── contradictions ─────────────────────────────────────────────────────────

  harmonize(actor: Actor, options: { domain?: string; resolve: boolean }): HarmonizePass {
    return harmonize(this.store, this.conflicts, actor, options);
  }
}
