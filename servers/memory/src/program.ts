/** The memory server's program: what its bin runs, and what a server host runs beside others. */
import { packageVersion, type ServerProgram, UsageError } from '@toolmesh/core';
import { redactedUrl } from './hot/redis-hot.js';
import {
  createMemoryServer,
  DEFAULT_HOT_LIMITS,
  DEFAULT_REDIS_PREFIX,
  defaultMemoryFile,
  MEMORY_SERVER_NAME,
  MEMORY_SUMMARY,
  openMemoryEngine,
} from './server.js';
import { DOMAIN_NAME } from './store/memory-store.js';

/** A year is already long for working memory; far larger TTLs gave expiry instants no Date holds and Redis refuses. */
const MAX_HOT_TTL_SECONDS = 365 * 24 * 3600;
/** Consolidation and notes read an identity's whole hot memory: the cap keeps that a bounded read. */
const MAX_HOT_ITEMS = 10_000;

function wholeNumber(
  flag: string,
  text: string | undefined,
  fallback: number,
  max = Number.MAX_SAFE_INTEGER,
): number {
  if (text === undefined) return fallback;
  if (!/^\d+$/.test(text) || Number(text) < 1) {
    throw new UsageError(`--${flag} must be a whole number of at least 1, not "${text}"`);
  }
  if (Number(text) > max)
    throw new UsageError(`--${flag} must be a whole number from 1 to ${max}, not "${text}"`);
  return Number(text);
}

/** `--domain-writer ops=alice` pairs, grouped by domain. */
function domainWriters(values: string[] | undefined): Map<string, string[]> {
  const grants = new Map<string, string[]>();
  for (const value of values ?? []) {
    const match = /^([^=]+)=(.+)$/.exec(value);
    if (!match || !DOMAIN_NAME.test(match[1] as string)) {
      throw new UsageError(`--domain-writer takes DOMAIN=IDENTITY (e.g. deploy=alice), not "${value}"`);
    }
    grants.set(match[1] as string, [...(grants.get(match[1] as string) ?? []), match[2] as string]);
  }
  return grants;
}

export const program: ServerProgram = {
  name: MEMORY_SERVER_NAME,
  version: packageVersion(import.meta.url),
  summary: `${MEMORY_SUMMARY} State in --db FILE (default <data dir>/memory/memory.db).`,
  flags: {
    redis: {
      type: 'string',
      value: 'URL',
      description: 'keep hot memory in Redis (default $REDIS_URL; without either, in the SQLite file)',
    },
    'redis-prefix': {
      type: 'string',
      value: 'PREFIX',
      description: `prefix of the Redis keys (default ${DEFAULT_REDIS_PREFIX})`,
    },
    'hot-ttl': {
      type: 'string',
      value: 'SECONDS',
      description: `default lifetime of a hot-memory item, 1 to ${MAX_HOT_TTL_SECONDS} (default ${DEFAULT_HOT_LIMITS.defaultTtlSeconds})`,
    },
    'hot-max-ttl': {
      type: 'string',
      value: 'SECONDS',
      description: `longest lifetime remember accepts, 1 to ${MAX_HOT_TTL_SECONDS} (default ${DEFAULT_HOT_LIMITS.maxTtlSeconds})`,
    },
    'hot-max-items': {
      type: 'string',
      value: 'N',
      description: `hot items per identity before the oldest is evicted, 1 to ${MAX_HOT_ITEMS} (default ${DEFAULT_HOT_LIMITS.maxItemsPerIdentity})`,
    },
    'promote-after': {
      type: 'string',
      value: 'N',
      description: 'recalls after which consolidate_memory promotes a hot item to a fact (default 2)',
    },
    'embeddings-url': {
      type: 'string',
      value: 'URL',
      description:
        'OpenAI-compatible embeddings endpoint (e.g. http://127.0.0.1:11434/v1); key from $TOOLMESH_EMBEDDINGS_API_KEY. Default: offline word vectors',
    },
    'embeddings-model': {
      type: 'string',
      value: 'NAME',
      description: 'the model to ask --embeddings-url for',
    },
    'domain-writer': {
      type: 'string',
      multiple: true,
      value: 'DOMAIN=IDENTITY',
      description: 'lets IDENTITY write policies in DOMAIN, in every served workspace (repeatable)',
    },
  },
  setup(flags, extra, log) {
    const defaultTtlSeconds = wholeNumber(
      'hot-ttl',
      extra['hot-ttl'] as string | undefined,
      DEFAULT_HOT_LIMITS.defaultTtlSeconds,
      MAX_HOT_TTL_SECONDS,
    );
    const maxTtlSeconds = wholeNumber(
      'hot-max-ttl',
      extra['hot-max-ttl'] as string | undefined,
      DEFAULT_HOT_LIMITS.maxTtlSeconds,
      MAX_HOT_TTL_SECONDS,
    );
    if (defaultTtlSeconds > maxTtlSeconds) {
      throw new UsageError(`--hot-ttl (${defaultTtlSeconds}) cannot exceed --hot-max-ttl (${maxTtlSeconds})`);
    }
    const hotLimits = {
      defaultTtlSeconds,
      maxTtlSeconds,
      maxItemsPerIdentity: wholeNumber(
        'hot-max-items',
        extra['hot-max-items'] as string | undefined,
        DEFAULT_HOT_LIMITS.maxItemsPerIdentity,
        MAX_HOT_ITEMS,
      ),
    };
    const embeddingsUrl = extra['embeddings-url'] as string | undefined;
    const embeddingsModel = extra['embeddings-model'] as string | undefined;
    if ((embeddingsUrl === undefined) !== (embeddingsModel === undefined)) {
      throw new UsageError(
        '--embeddings-url and --embeddings-model go together: give both, or neither for the offline embedder',
      );
    }
    const grants = domainWriters(extra['domain-writer'] as string[] | undefined);
    const redisUrl = (extra.redis as string | undefined) ?? process.env.REDIS_URL;
    const file = flags.db ?? defaultMemoryFile();
    const apiKey = process.env.TOOLMESH_EMBEDDINGS_API_KEY;
    const engine = openMemoryEngine({
      file,
      log,
      hotLimits,
      promoteAfterRecalls: wholeNumber('promote-after', extra['promote-after'] as string | undefined, 2),
      ...(redisUrl && {
        redisUrl,
        redisPrefix: (extra['redis-prefix'] as string | undefined) ?? DEFAULT_REDIS_PREFIX,
      }),
      ...(embeddingsUrl !== undefined &&
        embeddingsModel !== undefined && {
          embeddings: { url: embeddingsUrl, model: embeddingsModel, ...(apiKey && { apiKey }) },
        }),
    });
    for (const workspace of flags.workspaces) {
      for (const [domain, identities] of grants) engine.store.grantWriters(workspace, domain, identities);
    }
    log.debug(
      `memory in ${file}; hot memory in ${redisUrl ? redactedUrl(redisUrl) : 'SQLite'}; embeddings ${engine.semantic.provider.id}; workspaces ${flags.workspaces.join(', ')}`,
    );
    void engine.startEmbedding();
    const options = {
      engine,
      workspaces: flags.workspaces,
      ...(flags.agent !== undefined && { identity: flags.agent }),
      log,
    };
    return { createServer: () => createMemoryServer(options), close: () => engine.shutdown() };
  },
};
