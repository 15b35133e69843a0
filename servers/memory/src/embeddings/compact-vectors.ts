import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { words } from '../store/keyword-query.js';
import type { WordVectors } from './word-vectors.js';

/**
 * How many of the most frequent words the package ships. The labelled sets score the same with
 * these as with all 341,479 (docs/memory-eval.md); the rest are rare words and names of the news
 * corpus, each costing 100 bytes installed for a query that almost never meets it.
 */
export const SHIPPED_WORDS = 100_000;

/** Where the build writes the compact file, as the package exports it. */
export const COMPACT_VECTORS = '@toolmesh/server-memory/word-vectors.bin';

const MAGIC = 'TMWV';
const FORMAT = 1;
const HEADER_BYTES = 24;
const INT8_MAX = 127;

/**
 * The compact form of a word-vector table: the `limit` most frequent words the tokenizer can
 * produce (lowercase letters and digits; the others can never be looked up), each row quantized
 * to signed bytes with a scale of its own. Layout, little-endian: `TMWV`, format, dimensions,
 * rows, the full vocabulary's size (SIF weights need it), the words' byte length; then the words
 * joined by newlines, padded to 4 bytes; each row's frequency rank (u32); scale (f32); values (i8).
 */
export function encodeCompactVectors(table: WordVectors, limit = SHIPPED_WORDS): Buffer {
  const { dimensions } = table;
  const kept = [...table.index]
    .filter(([word]) => words(word).length === 1 && words(word)[0] === word)
    .sort(([, a], [, b]) => (table.rank[a] as number) - (table.rank[b] as number))
    .slice(0, limit);
  const text = Buffer.from(kept.map(([word]) => word).join('\n'), 'utf8');
  const textBytes = Math.ceil(text.length / 4) * 4;
  const rows = kept.length;
  const out = Buffer.alloc(HEADER_BYTES + textBytes + rows * 8 + rows * dimensions);
  out.write(MAGIC, 0, 'latin1');
  [FORMAT, dimensions, rows, table.vocabularySize, text.length].forEach((value, i) => {
    out.writeUInt32LE(value, 4 + i * 4);
  });
  text.copy(out, HEADER_BYTES);
  const ranksAt = HEADER_BYTES + textBytes;
  const scalesAt = ranksAt + rows * 4;
  const valuesAt = scalesAt + rows * 4;
  kept.forEach(([, source], row) => {
    const values = table.vectors.subarray(source * dimensions, (source + 1) * dimensions);
    const largest = values.reduce((most, value) => Math.max(most, Math.abs(value)), 0);
    const scale = largest / INT8_MAX || 1;
    out.writeUInt32LE(table.rank[source] as number, ranksAt + row * 4);
    out.writeFloatLE(scale, scalesAt + row * 4);
    values.forEach((value, k) => {
      out.writeInt8(Math.round(value / scale), valuesAt + row * dimensions + k);
    });
  });
  return out;
}

/** The table back from `encodeCompactVectors`' bytes, the values scaled back to floats. */
export function decodeCompactVectors(buffer: Buffer, source = 'word vectors'): WordVectors {
  if (buffer.length < HEADER_BYTES || buffer.toString('latin1', 0, 4) !== MAGIC) {
    throw new Error(`${source} is not a toolmesh word-vector file: rebuild @toolmesh/server-memory`);
  }
  const [format, dimensions, rows, vocabularySize, textLength] = [4, 8, 12, 16, 20].map((at) =>
    buffer.readUInt32LE(at),
  ) as [number, number, number, number, number];
  if (format !== FORMAT) {
    throw new Error(
      `${source} has format ${format}, this server reads ${FORMAT}: rebuild @toolmesh/server-memory`,
    );
  }
  const ranksAt = HEADER_BYTES + Math.ceil(textLength / 4) * 4;
  const scalesAt = ranksAt + rows * 4;
  const valuesAt = scalesAt + rows * 4;
  if (buffer.length !== valuesAt + rows * dimensions) {
    throw new Error(
      `${source} is ${buffer.length} bytes, its header says ${valuesAt + rows * dimensions}: the file looks damaged`,
    );
  }
  const index = new Map<string, number>();
  buffer
    .toString('utf8', HEADER_BYTES, HEADER_BYTES + textLength)
    .split('\n')
    .forEach((word, row) => {
      index.set(word, row);
    });
  const rank = new Uint32Array(rows);
  const vectors = new Float32Array(rows * dimensions);
  for (let row = 0; row < rows; row++) {
    rank[row] = buffer.readUInt32LE(ranksAt + row * 4);
    const scale = buffer.readFloatLE(scalesAt + row * 4);
    for (let k = 0; k < dimensions; k++) {
      vectors[row * dimensions + k] = buffer.readInt8(valuesAt + row * dimensions + k) * scale;
    }
  }
  return { dimensions, index, vectors, rank, vocabularySize };
}

let loaded: WordVectors | undefined;

/** The word vectors the package ships, read once per process on first use. */
export function shippedWordVectors(): WordVectors {
  if (!loaded) {
    let file: string;
    try {
      file = createRequire(import.meta.url).resolve(COMPACT_VECTORS);
    } catch (error) {
      throw new Error(
        `the memory server's word vectors (${COMPACT_VECTORS}) are missing: the package was not built (run \`pnpm --filter @toolmesh/server-memory build\`), or pass --embeddings-url to embed with a model instead`,
        { cause: error },
      );
    }
    loaded = decodeCompactVectors(readFileSync(file), file);
  }
  return loaded;
}
