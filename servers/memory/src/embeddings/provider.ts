/**
 * Turns texts into vectors for semantic search. Vectors are stored with the provider's `id`, so
 * a different provider (or model) is noticed and everything is embedded again with it.
 */
export interface EmbeddingProvider {
  readonly id: string;
  /** One unit-length vector per text, in order; a text with nothing to go on gets a zero vector. */
  embed(texts: readonly string[]): Promise<Float32Array[]>;
}

/** Scales a vector to unit length in place (a zero vector stays zero). */
export { unitVector as normalize } from '@toolmesh/core';
