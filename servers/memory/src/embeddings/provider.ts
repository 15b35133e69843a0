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
export function normalize(vector: Float32Array): Float32Array {
  let sum = 0;
  for (let i = 0; i < vector.length; i++) sum += (vector[i] as number) * (vector[i] as number);
  const norm = Math.sqrt(sum);
  if (norm > 0) for (let i = 0; i < vector.length; i++) vector[i] = (vector[i] as number) / norm;
  return vector;
}
