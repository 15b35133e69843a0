// `@toolmesh/server-memory/embeddings`: the embedders alone, for other packages (such as the
// aggregator's tool discovery) that want sentence vectors without the memory server.

export { embeddingsUrl, HttpEmbedder, type HttpEmbedderOptions } from '@toolmesh/core';
export {
  decodeCompactVectors,
  encodeCompactVectors,
  SHIPPED_WORDS,
  shippedWordVectors,
} from './embeddings/compact-vectors.js';
export { OfflineEmbedder } from './embeddings/offline-embedder.js';
export { type EmbeddingProvider, normalize } from './embeddings/provider.js';
export { parseWinkVectors, type WordVectors } from './embeddings/word-vectors.js';
