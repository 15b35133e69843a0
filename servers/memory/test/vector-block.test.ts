import { describe, expect, it } from 'vitest';
import { VectorBlock } from '../src/embeddings/vector-block.js';

const dot = (a: Float32Array, b: Float32Array) => a.reduce((sum, x, i) => sum + x * (b[i] as number), 0);

describe('VectorBlock', () => {
  it('scores every row with the SIMD kernel as plain arithmetic does, across growth and padding', () => {
    const block = new VectorBlock(10, 4);
    const vectors = Array.from({ length: 50 }, (_, i) =>
      Float32Array.from({ length: 10 }, (_, d) => Math.sin(i * 10 + d)),
    );
    vectors.forEach((vector, i) => {
      expect(block.append(1000 + i, vector)).toBe(true);
    });
    expect(block.accelerated).toBe(true);
    expect(block.stride).toBe(12);
    const query = Float32Array.from({ length: 10 }, (_, d) => Math.cos(d));
    const scores = block.scores(query);
    expect(scores).toHaveLength(50);
    vectors.forEach((vector, i) => {
      expect(scores[i]).toBeCloseTo(dot(vector, query), 4);
    });
    expect([...block.ids.subarray(0, 3)]).toEqual([1000, 1001, 1002]);
  });

  it('refuses a vector of another length', () => {
    const block = new VectorBlock(4);
    expect(block.append(1, new Float32Array(5))).toBe(false);
    expect(block.count).toBe(0);
  });
});
