import type { TermList } from './term-list.js';

/** Per slot: the chunk's hash, where its characters start, its length (0: empty slot), where its terms start, how many. */
const SLOT_SIZE = 5;
const INITIAL_SLOTS = 1 << 10;
/** Past this the table is emptied rather than grown, as a cache would be. */
const MAX_SLOTS = 1 << 20;

/**
 * The term numbers of each chunk of text met so far, found straight from the text being
 * tokenized: no slice, no lowercase copy, no string hashing. Text is mostly words from a
 * vocabulary of a few thousand, so this lookup is where tokenizing spends its time; the
 * table is kept small enough to stay in the CPU cache: open addressing over packed
 * integers, the chunks' characters side by side in one buffer, their terms in another.
 */
export class ChunkTable {
  #slotCount = INITIAL_SLOTS;
  #slots = new Int32Array(INITIAL_SLOTS * SLOT_SIZE);
  #entries = 0;
  #characters = new Uint16Array(1 << 12);
  #charactersUsed = 0;
  #terms = new Int32Array(1 << 12);
  #termsUsed = 0;

  /** The running hash (FNV-1a) of a chunk's characters, from 0. */
  static hashStep(hash: number, code: number): number {
    return Math.imul(hash ^ code, 16777619);
  }

  /** Appends the terms remembered for `text.slice(start, end)`, whose hash is `hash`; false when there are none. */
  appendTerms(text: string, start: number, end: number, hash: number, into: TermList): boolean {
    const slots = this.#slots;
    const mask = this.#slotCount - 1;
    const length = end - start;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const at = slot * SLOT_SIZE;
      const slotLength = slots[at + 2]!;
      if (slotLength === 0) return false;
      if (slots[at] === hash && slotLength === length && this.#isSame(slots[at + 1]!, text, start, length)) {
        const first = slots[at + 3]!;
        into.append(this.#terms, first, first + slots[at + 4]!);
        return true;
      }
    }
  }

  /** Remembers `numbers` as the terms of `chunk`, whose hash is `hash`. */
  remember(chunk: string, hash: number, numbers: readonly number[]): void {
    if (this.#entries >= this.#slotCount / 2) this.#makeRoom();
    const characterOffset = this.#charactersUsed;
    this.#characters = ensured(this.#characters, characterOffset + chunk.length);
    for (let at = 0; at < chunk.length; at++) this.#characters[characterOffset + at] = chunk.charCodeAt(at);
    this.#charactersUsed += chunk.length;
    const termOffset = this.#termsUsed;
    this.#terms = ensured(this.#terms, termOffset + numbers.length);
    this.#terms.set(numbers, termOffset);
    this.#termsUsed += numbers.length;
    this.#place(hash, characterOffset, chunk.length, termOffset, numbers.length);
    this.#entries++;
  }

  clear(): void {
    this.#slotCount = INITIAL_SLOTS;
    this.#slots = new Int32Array(INITIAL_SLOTS * SLOT_SIZE);
    this.#entries = 0;
    this.#charactersUsed = 0;
    this.#termsUsed = 0;
  }

  #isSame(offset: number, text: string, start: number, length: number): boolean {
    const characters = this.#characters;
    for (let at = 0; at < length; at++) {
      if (characters[offset + at] !== text.charCodeAt(start + at)) return false;
    }
    return true;
  }

  #place(hash: number, characterOffset: number, length: number, termOffset: number, termCount: number): void {
    const slots = this.#slots;
    const mask = this.#slotCount - 1;
    let slot = hash & mask;
    while (slots[slot * SLOT_SIZE + 2] !== 0) slot = (slot + 1) & mask;
    const at = slot * SLOT_SIZE;
    slots[at] = hash;
    slots[at + 1] = characterOffset;
    slots[at + 2] = length;
    slots[at + 3] = termOffset;
    slots[at + 4] = termCount;
  }

  #makeRoom(): void {
    if (this.#slotCount >= MAX_SLOTS) {
      this.clear();
      return;
    }
    const old = this.#slots;
    this.#slotCount *= 2;
    this.#slots = new Int32Array(this.#slotCount * SLOT_SIZE);
    for (let at = 0; at < old.length; at += SLOT_SIZE) {
      if (old[at + 2] !== 0) this.#place(old[at]!, old[at + 1]!, old[at + 2]!, old[at + 3]!, old[at + 4]!);
    }
  }
}

function ensured<T extends Uint16Array | Int32Array>(buffer: T, needed: number): T {
  if (needed <= buffer.length) return buffer;
  const larger = new (buffer.constructor as new (length: number) => T)(Math.max(needed, buffer.length * 2));
  larger.set(buffer);
  return larger;
}
