import {
  createLogger,
  createToolServer,
  HttpEmbedder,
  type HttpEmbedderOptions,
  type Logger,
  packageVersion,
  serverDataFile,
  type ToolServer,
} from '@toolmesh/core';
import { OfflineEmbedder } from './embeddings/offline-embedder.js';
import type { EmbeddingProvider } from './embeddings/provider.js';
import { MemoryEngine } from './engine.js';
import { DEFAULT_HOT_LIMITS, type HotLimits, type HotMemory } from './hot/hot-memory.js';
import { RedisHotMemory } from './hot/redis-hot.js';
import { SqliteHotMemory } from './hot/sqlite-hot.js';
import { type Clock, systemClock } from './store/clock.js';
import { MemoryStore } from './store/memory-store.js';
import { MEMORY_TOOLS } from './tools/index.js';

export const MEMORY_SERVER_NAME = 'toolmesh-memory';
export const MEMORY_SUMMARY =
  'MCP memory server: long-term facts, policies, observations and notes in SQLite, hot memory in SQLite or Redis, scoped per workspace.';
export const DEFAULT_REDIS_PREFIX = 'toolmesh:memory';

export interface MemoryServerOptions {
  engine: MemoryEngine;
  /** The workspace ids served (default ["default"]); an entry of any other is "not found". */
  workspaces?: readonly string[];
  /** Who acts when a request carries no `toolmesh/agent` (the --agent flag). */
  identity?: string;
  log?: Logger;
}

/** Where long-term memory lives when --db does not say. */
export function defaultMemoryFile(env: NodeJS.ProcessEnv = process.env): string {
  return serverDataFile('memory', 'memory.db', env);
}

export interface MemoryEngineSetup {
  file: string;
  log: Logger;
  clock?: Clock;
  /** Hot memory in Redis at this URL; in the SQLite file when absent. */
  redisUrl?: string;
  redisPrefix?: string;
  hotLimits?: HotLimits;
  promoteAfterRecalls?: number;
  /** An OpenAI-compatible endpoint; the offline word-vector embedder when absent. */
  embeddings?: HttpEmbedderOptions;
  /** Overrides `embeddings` (tests, benchmarks). */
  embedder?: EmbeddingProvider;
  /** Told how far background embedding got (after a change of provider, all rows are embedded again). */
  onEmbeddingProgress?: (done: number, total: number) => void;
}

/** The engine over a SQLite file, with hot memory and embeddings as configured. */
export function openMemoryEngine(setup: MemoryEngineSetup): MemoryEngine {
  const clock = setup.clock ?? systemClock;
  const hotLimits = setup.hotLimits ?? DEFAULT_HOT_LIMITS;
  const store = new MemoryStore(setup.file, { clock });
  const hot: HotMemory = setup.redisUrl
    ? new RedisHotMemory({
        url: setup.redisUrl,
        keyPrefix: setup.redisPrefix ?? DEFAULT_REDIS_PREFIX,
        clock,
        maxItemsPerIdentity: hotLimits.maxItemsPerIdentity,
        onError: (message) => setup.log.warning(`redis: ${message}`),
      })
    : new SqliteHotMemory(store.db, clock, hotLimits.maxItemsPerIdentity);
  const embedder =
    setup.embedder ??
    (setup.embeddings
      ? new HttpEmbedder({ remedy: 'use mode keyword, or fix --embeddings-url.', ...setup.embeddings })
      : new OfflineEmbedder());
  return new MemoryEngine({
    store,
    hot,
    embedder,
    log: setup.log,
    hotLimits,
    ...(setup.promoteAfterRecalls !== undefined && { promoteAfterRecalls: setup.promoteAfterRecalls }),
    ...(setup.onEmbeddingProgress && { onEmbeddingProgress: setup.onEmbeddingProgress }),
  });
}

/** What docs/servers/memory.md is generated from. */
export const toolReference = {
  name: '@toolmesh/server-memory',
  summary: `${MEMORY_SUMMARY} Facts, policies and observations live in named domains; superseding keeps the old entry, linked to its successor and closed at its start (valid_from / valid_until / recorded_at), so search with as_of answers "what held on that date". Policies need write rights on their domain (its creator and --domain-writer identities) and are retired, never deleted. Search is keyword (FTS5 BM25), semantic (offline word vectors or an OpenAI-compatible endpoint) or hybrid (reciprocal-rank fusion, the default). Hot memory is bounded by TTL and a per-identity cap; consolidate_memory promotes durable or repeatedly recalled items to facts, and harmonize_memory records contradictions with an explanation and a suggested resolution. Every tool is workspace-scoped; reads carry the action class read, writes memoryWrite.`,
  tools: MEMORY_TOOLS,
};

/** One MCP server (one client session) over a shared memory engine. */
export function createMemoryServer(options: MemoryServerOptions): ToolServer {
  const log = options.log ?? createLogger({ scope: MEMORY_SERVER_NAME });
  return createToolServer({
    name: MEMORY_SERVER_NAME,
    version: packageVersion(import.meta.url),
    title: 'toolmesh memory',
    instructions:
      'Shared memory for agents. Find what is known with search_memory (hybrid by default); store settled knowledge with propose_fact and change it with supersede_fact (never by proposing a contradicting fact); rules go in propose_policy. Keep your own scratchpad with get_my_notes / update_my_notes, and short-lived notes with remember.',
    tools: MEMORY_TOOLS,
    engine: options.engine,
    log,
    scope: {
      workspaces: options.workspaces ?? ['default'],
      ...(options.identity !== undefined && { identity: options.identity }),
    },
  });
}

export { HttpEmbedder } from '@toolmesh/core';
export { OfflineEmbedder } from './embeddings/offline-embedder.js';
export type { EmbeddingProvider } from './embeddings/provider.js';
export { MemoryEngine, type SearchMode } from './engine.js';
export { DEFAULT_HOT_LIMITS, type HotLimits, type HotMemory } from './hot/hot-memory.js';
export { RedisHotMemory } from './hot/redis-hot.js';
export { SqliteHotMemory } from './hot/sqlite-hot.js';
export { MemoryStore } from './store/memory-store.js';
export { MEMORY_TOOLS } from './tools/index.js';
