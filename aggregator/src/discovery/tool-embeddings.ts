import { createHash } from 'node:crypto';
import { identifierWords } from '@toolmesh/bm25';
import { errorMessage, HttpEmbedder, type HttpEmbedderOptions, type Logger } from '@toolmesh/core';
import type { IndexedTool } from './indexed-tool.js';
import type { ToolHit } from './tool-index.js';

export interface Embedder {
  readonly id: string;
  embed(texts: readonly string[]): Promise<Float32Array[]>;
}

/**
 * How much a tool's cosine to the query counts beside its BM25 score divided by the best
 * one: the blend chosen on the development set when embeddings were first measured (see
 * docs/aggregator.md).
 */
export const COSINE_WEIGHT = 0.5;
/** How many of the closest tools by cosine join BM25's hits as candidates. */
const DENSE_CANDIDATES = 30;
/** A description's start says what a tool does; the rest costs the model time. */
const DESCRIPTION_CHARACTERS = 1000;
/** Texts sent in one request. */
const BATCH = 32;

/** What the embeddings stage tells a search beside its hits. */
export interface FusedHits {
  hits: ToolHit[];
  /** Why the embeddings stage was left out this time, when it was. */
  problem?: string;
}

/** The text a tool is embedded by: its name in words, its title, the start of its description. */
export function embeddedText(tool: IndexedTool): string {
  const name = identifierWords(tool.tool).join(' ').toLowerCase();
  return [name, tool.title, tool.description?.slice(0, DESCRIPTION_CHARACTERS)].filter(Boolean).join('. ');
}

/**
 * The optional embeddings stage of tool search: every tool embedded once, cached by a digest of
 * its text and the model, so a registry change embeds only the tools it added or changed; a
 * search embeds its query (its one extra round trip) and ranks BM25's hits and the tools
 * closest by cosine together by BM25 ÷ its best score + `COSINE_WEIGHT` × cosine.
 */
export class ToolEmbeddings {
  readonly #embedder: Embedder;
  readonly #log: Logger;
  /** Digest of a tool's text → its vector. */
  readonly #vectors = new Map<string, Float32Array>();
  /** Tool name → the digest of its text now. */
  #digests = new Map<string, string>();
  #syncing: Promise<void> = Promise.resolve();

  constructor(embedder: Embedder, log: Logger) {
    this.#embedder = embedder;
    this.#log = log;
  }

  static fromSettings(settings: HttpEmbedderOptions, log: Logger): ToolEmbeddings {
    return new ToolEmbeddings(
      new HttpEmbedder({
        remedy: 'tool search goes on with BM25 alone; fix discovery.embeddings.',
        ...settings,
      }),
      log,
    );
  }

  /** How many tools have a vector now. */
  get embedded(): number {
    let count = 0;
    for (const digest of this.#digests.values()) if (this.#vectors.has(digest)) count++;
    return count;
  }

  /**
   * Follows the registry: embeds the tools whose text it has no vector for, in the background,
   * one sync after another. Resolves when this sync is done; failures are logged, and the tools
   * they left out are tried again on the next sync.
   */
  sync(tools: Iterable<IndexedTool>): Promise<void> {
    const digests = new Map<string, string>();
    const texts = new Map<string, string>();
    for (const tool of tools) {
      const text = embeddedText(tool);
      const digest = createHash('sha256').update(`${this.#embedder.id}\n${text}`).digest('hex');
      digests.set(tool.name, digest);
      texts.set(digest, text);
    }
    this.#digests = digests;
    this.#syncing = this.#syncing.then(() => this.#embedMissing(texts));
    return this.#syncing;
  }

  async #embedMissing(texts: ReadonlyMap<string, string>): Promise<void> {
    const current = new Set(this.#digests.values());
    for (const digest of this.#vectors.keys()) if (!current.has(digest)) this.#vectors.delete(digest);
    const missing = [...texts].filter(([digest]) => current.has(digest) && !this.#vectors.has(digest));
    try {
      for (let at = 0; at < missing.length; at += BATCH) {
        const batch = missing.slice(at, at + BATCH);
        const vectors = await this.#embedder.embed(batch.map(([, text]) => text));
        for (const [position, [digest]] of batch.entries()) this.#vectors.set(digest, vectors[position]!);
      }
    } catch (error) {
      this.#log.warning(`could not embed the tools for search: ${errorMessage(error)}`);
    }
  }

  /**
   * `hits` (BM25's, best first) ranked again with the query's embedding, with the tools closest
   * to it that `accept` lets in, `limit` of them.
   */
  async fuse(
    query: string,
    hits: readonly ToolHit[],
    limit: number,
    accept?: (name: string) => boolean,
  ): Promise<FusedHits> {
    let queryVector: Float32Array;
    try {
      [queryVector] = (await this.#embedder.embed([query])) as [Float32Array];
    } catch (error) {
      return { hits: hits.slice(0, limit), problem: errorMessage(error) };
    }
    const cosines = new Map<string, number>();
    for (const [name, digest] of this.#digests) {
      const vector = this.#vectors.get(digest);
      if (vector && vector.length === queryVector.length && (accept?.(name) ?? true))
        cosines.set(name, dot(vector, queryVector));
    }
    const closest = [...cosines].sort((a, b) => b[1] - a[1]).slice(0, DENSE_CANDIDATES);
    const best = hits[0]?.score || 1;
    const fused = new Map<string, number>();
    for (const { name, score } of hits)
      fused.set(name, score / best + COSINE_WEIGHT * (cosines.get(name) ?? 0));
    for (const [name, cosine] of closest) if (!fused.has(name)) fused.set(name, COSINE_WEIGHT * cosine);
    return {
      hits: [...fused]
        .map(([name, score]) => ({ name, score }))
        .sort((a, b) => b.score - a.score || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
        .slice(0, limit),
    };
  }
}

function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i]! * b[i]!;
  return sum;
}
