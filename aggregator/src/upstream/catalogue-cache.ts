import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { isStdioServer, type ServerConfig } from '../config/schema.js';
import type { UpstreamCatalog } from './upstream-catalog.js';

/** One server's catalogue as it last listed it, for the config it was started with. */
export interface CachedCatalogue {
  /** sha256 of the server's config: a changed entry (command, args, env) makes the cache miss. */
  config: string;
  savedAt: number;
  catalog: UpstreamCatalog;
}

type CacheFile = { servers: Record<string, CachedCatalogue> };

function fingerprint(config: ServerConfig): string {
  // A stdio server without a cwd of its own runs in toolmesh's, where a relative command or
  // argument names another server in each project the same config is used from.
  const ranIn = isStdioServer(config) && !config.cwd ? process.cwd() : undefined;
  // A hash, not the config: env values may be secrets, and this file is not one.
  return createHash('sha256')
    .update(JSON.stringify(ranIn === undefined ? config : { config, ranIn }))
    .digest('hex');
}

/**
 * The catalogue of every server as it was when a registry was last built, kept in the data
 * directory, so one-shot commands (`toolmesh search`, `tools`, `call`) need not start every server.
 */
export class CatalogueCache {
  private written = '';

  constructor(readonly file: string) {}

  static inDataDirectory(dataDir: string): CatalogueCache {
    return new CatalogueCache(path.join(dataDir, 'aggregator', 'catalogue.json'));
  }

  private load(): CacheFile {
    try {
      const parsed = JSON.parse(readFileSync(this.file, 'utf8')) as Partial<CacheFile>;
      return { servers: parsed.servers ?? {} };
    } catch {
      // None yet, or unreadable: the servers are started instead.
      return { servers: {} };
    }
  }

  /** The cached catalogues of those `servers` whose config is unchanged since they were saved. */
  read(servers: ReadonlyMap<string, ServerConfig>): Map<string, CachedCatalogue> {
    const cached = this.load().servers;
    const found = new Map<string, CachedCatalogue>();
    for (const [name, config] of servers) {
      const entry = Object.hasOwn(cached, name) ? cached[name] : undefined;
      if (entry && entry.config === fingerprint(config)) found.set(name, entry);
    }
    return found;
  }

  /** Keeps the catalogues of these servers (the others' stay as they were); written only when they changed. */
  save(ready: readonly { name: string; config: ServerConfig; catalog: UpstreamCatalog }[]): void {
    const entries = ready.map(({ name, config, catalog }) => [name, fingerprint(config), catalog] as const);
    const signature = JSON.stringify(entries);
    if (signature === this.written || entries.length === 0) return;
    const file = this.load();
    const savedAt = Date.now();
    for (const [name, config, catalog] of entries) file.servers[name] = { config, savedAt, catalog };
    mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 });
    // Whole or not at all: a reader never sees half a file.
    const partial = `${this.file}.${process.pid}.tmp`;
    writeFileSync(partial, JSON.stringify(file), { mode: 0o600 });
    renameSync(partial, this.file);
    this.written = signature;
  }
}
