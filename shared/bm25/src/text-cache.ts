import type { TermList } from './term-list.js';

/** Past this many term numbers remembered the cache starts again, so it stays a few MiB. */
const MAX_TERMS = 1 << 20;
/** Past this many texts likewise: each entry also keeps its text alive. */
const MAX_TEXTS = 1 << 16;

/**
 * The term numbers of whole texts met before. Registries repeat their texts: the same server
 * deployed several times lists the same descriptions, and a rebuild meets every text again, so
 * a text met before costs one lookup instead of a sweep over its characters. The numbers sit
 * side by side in one buffer, each run led by its length.
 */
export class TextCache {
  readonly #offsets = new Map<string, number>();
  #numbers = new Int32Array(1 << 14);
  #used = 0;

  /** Appends the terms remembered for `text`; false when there are none. */
  appendTerms(text: string, into: TermList): boolean {
    const offset = this.#offsets.get(text);
    if (offset === undefined) return false;
    const first = offset + 1;
    into.append(this.#numbers, first, first + this.#numbers[offset]!);
    return true;
  }

  /** Remembers `from[start]` up to `from[end - 1]` as the terms of `text`. */
  remember(text: string, from: Int32Array, start: number, end: number): void {
    const count = end - start;
    if (count >= MAX_TERMS) return;
    if (this.#used + count + 1 > MAX_TERMS || this.#offsets.size >= MAX_TEXTS) this.clear();
    if (this.#used + count + 1 > this.#numbers.length) {
      const larger = new Int32Array(Math.max(this.#used + count + 1, this.#numbers.length * 2));
      larger.set(this.#numbers.subarray(0, this.#used));
      this.#numbers = larger;
    }
    const offset = this.#used;
    this.#numbers[offset] = count;
    this.#numbers.set(from.subarray(start, end), offset + 1);
    this.#used += count + 1;
    this.#offsets.set(text, offset);
  }

  clear(): void {
    this.#offsets.clear();
    this.#used = 0;
  }
}
