import { describe, expect, it } from 'vitest';
import { PairCache } from '../src/graph/pair-cache.js';

describe('PairCache', () => {
  it('computes each pair once, keeps undefined answers, and tells pairs apart', () => {
    const cache = new PairCache<number, string, string | undefined>();
    const asked: string[] = [];
    const lookup = (first: number, second: string) =>
      cache.get(first, second, () => {
        asked.push(`${first}/${second}`);
        return first === 1 ? `${second}@${first}` : undefined;
      });
    expect(lookup(1, 'a')).toBe('a@1');
    expect(lookup(1, 'a')).toBe('a@1');
    expect(lookup(1, 'b')).toBe('b@1');
    expect(lookup(2, 'a')).toBeUndefined();
    expect(lookup(2, 'a')).toBeUndefined();
    expect(asked).toEqual(['1/a', '1/b', '2/a']);
  });
});
