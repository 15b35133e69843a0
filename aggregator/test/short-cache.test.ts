import { describe, expect, it } from 'vitest';
import { ShortCache } from '../src/state/short-cache.js';

/** A cache on a clock the test moves, and a store whose reads it counts. */
function setUp(ttlMs: number, maxEntries?: number) {
  let time = 0;
  const store = new Map<string, string>();
  let reads = 0;
  const cache = new ShortCache<string | undefined>(ttlMs, maxEntries, () => time);
  const get = (key: string) =>
    cache.get(key, async () => {
      reads++;
      return store.get(key);
    });
  return {
    cache,
    store,
    get,
    reads: () => reads,
    advance: (ms: number) => {
      time += ms;
    },
  };
}

describe('ShortCache', () => {
  it('answers from what it read until the ttl has passed, then reads again', async () => {
    const { store, get, reads, advance } = setUp(500);
    store.set('principal', 'plan');
    expect(await get('principal')).toBe('plan');
    // Another process switches the mode: seen here only once the ttl has passed.
    store.set('principal', 'chat');
    advance(499);
    expect(await get('principal')).toBe('plan');
    advance(1);
    expect(await get('principal')).toBe('chat');
    expect(reads()).toBe(2);
  });

  it('sees at once what this process wrote, and reads again after a delete', async () => {
    const { cache, store, get, reads } = setUp(500);
    store.set('session', 'r-a');
    await get('session');
    cache.set('session', 'r-b');
    expect(await get('session')).toBe('r-b');
    cache.delete('session');
    expect(await get('session')).toBe('r-a');
    expect(reads()).toBe(2);
  });

  it('keeps an absence as well, and forgets the oldest entries beyond its size', async () => {
    const { store, get, reads } = setUp(500, 2);
    expect(await get('a')).toBeUndefined();
    store.set('a', 'x');
    expect(await get('a')).toBeUndefined();
    await get('b');
    await get('c');
    // a was the oldest of three in a cache of two: read again.
    expect(await get('a')).toBe('x');
    expect(reads()).toBe(4);
  });
});
