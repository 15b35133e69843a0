import { words } from '../store/keyword-query.js';
import { shippedWordVectors } from './compact-vectors.js';
import { type EmbeddingProvider, normalize } from './provider.js';
import type { WordVectors } from './word-vectors.js';

/** SIF's smoothing constant: words much more frequent than this weigh little. */
const SIF_A = 1e-3;

/**
 * Sentence vectors from word vectors, offline: the SIF-weighted mean (weight a / (a + p(w)),
 * with p(w) estimated from the word's frequency rank by Zipf's law) of the known words' vectors,
 * scaled to unit length. Frequent words ("the", "is") barely count; rare, topical ones carry the
 * meaning. Unknown words are skipped, after trying them without a plural "s".
 */
export class OfflineEmbedder implements EmbeddingProvider {
  readonly id: string;
  private weights?: Float32Array;

  constructor(
    private readonly load: () => WordVectors = shippedWordVectors,
    id = 'wink-sg-100d-q8-sif',
  ) {
    this.id = id;
  }

  /** The word vectors, read on first use (not at start-up: a server that never embeds never pays). */
  vectors(): WordVectors {
    return this.load();
  }

  private weightsOf(table: WordVectors): Float32Array {
    if (!this.weights) {
      const harmonic = Math.log(table.vocabularySize) + 0.5772;
      this.weights = new Float32Array(table.rank.length);
      for (let row = 0; row < table.rank.length; row++) {
        const probability = 1 / (((table.rank[row] as number) + 1) * harmonic);
        this.weights[row] = SIF_A / (SIF_A + probability);
      }
    }
    return this.weights;
  }

  private row(table: WordVectors, word: string): number | undefined {
    return (
      table.index.get(word) ??
      (word.length > 3 && word.endsWith('s') ? table.index.get(word.slice(0, -1)) : undefined)
    );
  }

  embedOne(text: string): Float32Array {
    const table = this.vectors();
    const weights = this.weightsOf(table);
    const dimensions = table.dimensions;
    const sum = new Float32Array(dimensions);
    for (const word of words(text)) {
      const row = this.row(table, word);
      if (row === undefined) continue;
      const weight = weights[row] as number;
      const base = row * dimensions;
      for (let k = 0; k < dimensions; k++)
        sum[k] = (sum[k] as number) + weight * (table.vectors[base + k] as number);
    }
    return normalize(sum);
  }

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    return texts.map((text) => this.embedOne(text));
  }
}
