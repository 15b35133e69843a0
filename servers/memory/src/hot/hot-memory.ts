import { ToolError } from '@toolmesh/core';

/** One note of an identity's working memory: bounded by its expiry and by the per-identity cap. */
export interface HotItem {
  /** H-12. */
  id: string;
  identity: string;
  /** Where consolidate_memory files it when it becomes a fact. */
  domain: string;
  text: string;
  /** Asked to be kept: consolidate_memory promotes it to a fact. */
  durable: boolean;
  createdAt: string;
  /** When it was last said: its creation, or the latest time it was remembered again. */
  notedAt: string;
  expiresAt: string;
  /** How often it was recalled (found by search_memory, or remembered again). */
  recalls: number;
}

export interface HotScope {
  workspace: string;
  identity: string;
}

export interface NewHotItem {
  text: string;
  /** What makes two texts the same note (case, spacing and end punctuation folded). */
  key: string;
  domain: string;
  durable: boolean;
  ttlMs: number;
}

export interface HotLimits {
  defaultTtlSeconds: number;
  maxTtlSeconds: number;
  /** The most items one identity holds in one workspace; a new one evicts the oldest. */
  maxItemsPerIdentity: number;
}

export const DEFAULT_HOT_LIMITS: HotLimits = {
  defaultTtlSeconds: 3600,
  maxTtlSeconds: 7 * 24 * 3600,
  maxItemsPerIdentity: 100,
};

/**
 * Working memory, shared by every session that points at the same backing store. An item is live
 * while now < expiresAt (UTC milliseconds): at the boundary it is already gone, and no method
 * ever returns an item that is not live.
 */
export interface HotMemory {
  readonly backend: 'sqlite' | 'redis';
  /**
   * Adds an item and returns it with the ids the cap evicted (oldest first) — or, when a live
   * item of the identity has the same key, counts a recall of that one instead (`repeated`).
   * Either happens atomically, so two sessions remembering the same note keep one item.
   */
  add(scope: HotScope, item: NewHotItem): Promise<{ item: HotItem; evicted: string[]; repeated: boolean }>;
  /** The identity's live items, newest first. */
  list(scope: HotScope): Promise<HotItem[]>;
  /** Counts one more recall of each live item named. */
  recall(workspace: string, items: readonly HotItem[]): Promise<void>;
  /** Drops every expired item of the workspace; returns the live ones (all identities) and how many went. */
  sweep(workspace: string): Promise<{ live: HotItem[]; expired: number }>;
  /** Removes these items (once promoted to facts). */
  remove(workspace: string, items: readonly HotItem[]): Promise<void>;
  close(): Promise<void>;
}

/** The lifetime in ms of a requested TTL: a whole number of seconds from 1 to the maximum, else refused. */
export function ttlMilliseconds(ttlSeconds: number | undefined, limits: HotLimits): number {
  const seconds = ttlSeconds ?? limits.defaultTtlSeconds;
  if (!Number.isInteger(seconds) || seconds < 1 || seconds > limits.maxTtlSeconds) {
    throw new ToolError(
      `ttl_seconds must be a whole number from 1 to ${limits.maxTtlSeconds} (default ${limits.defaultTtlSeconds}), not ${String(ttlSeconds)}: hot memory never keeps an item forever; use propose_fact for what must last.`,
      'bad_ttl',
    );
  }
  return seconds * 1000;
}

export function hotRef(id: number | string): string {
  return `H-${id}`;
}
