/**
 * The term of each plain word met so far (ASCII letters or digits, see `tokenize`), found
 * straight from the text being tokenized: no slice, no lowercase copy, no string hashing.
 * Prose is mostly plain words from a vocabulary of a few thousand, and this lookup is where
 * tokenizing spends its time, so the table is kept small enough to stay in the CPU cache:
 * open addressing over packed integers, the words' characters side by side in one buffer.
 */

/** Per slot: the word's hash, where its characters start in `characters`, its length, its term's number + 1. */
const SLOT_SIZE = 4;
const INITIAL_SLOTS = 1 << 14;
/** Past this the table is emptied rather than grown, as a cache would be. */
const MAX_SLOTS = 1 << 20;

let slotCount = INITIAL_SLOTS;
let slots = new Int32Array(slotCount * SLOT_SIZE);
let characters = new Uint8Array(1 << 16);
let charactersUsed = 0;
let terms: string[] = [];

/** The running hash (FNV-1a) `tokenize` keeps of a word's lowercased characters, from 0. */
export function hashStep(hash: number, lowercaseCode: number): number {
  return Math.imul(hash ^ lowercaseCode, 16777619);
}

/** The term remembered for the lowercased `text.slice(start, end)`, whose hash is `hash`. */
export function rememberedTerm(text: string, start: number, end: number, hash: number): string | undefined {
  const mask = slotCount - 1;
  const length = end - start;
  for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
    const at = slot * SLOT_SIZE;
    const term = slots[at + 3]!;
    if (term === 0) return undefined;
    if (slots[at] === hash && slots[at + 2] === length && isSameWord(slots[at + 1]!, text, start, length)) {
      return terms[term - 1];
    }
  }
}

/** Remembers `term` for `word`, a lowercased plain word whose hash is `hash`. */
export function rememberTerm(word: string, hash: number, term: string): void {
  if (terms.length >= slotCount / 2) makeRoom();
  if (charactersUsed + word.length > characters.length) {
    const larger = new Uint8Array(characters.length * 2 + word.length);
    larger.set(characters);
    characters = larger;
  }
  for (let at = 0; at < word.length; at++) characters[charactersUsed + at] = word.charCodeAt(at);
  terms.push(term);
  place(hash, charactersUsed, word.length, terms.length);
  charactersUsed += word.length;
}

function isSameWord(offset: number, text: string, start: number, length: number): boolean {
  for (let at = 0; at < length; at++) {
    // Plain words are ASCII letters and digits, so setting bit 5 lowercases exactly.
    if (characters[offset + at] !== (text.charCodeAt(start + at) | 32)) return false;
  }
  return true;
}

function place(hash: number, offset: number, length: number, termNumber: number): void {
  const mask = slotCount - 1;
  let slot = hash & mask;
  while (slots[slot * SLOT_SIZE + 3] !== 0) slot = (slot + 1) & mask;
  slots.set([hash, offset, length, termNumber], slot * SLOT_SIZE);
}

function makeRoom(): void {
  const old = slots;
  if (slotCount >= MAX_SLOTS) {
    slotCount = INITIAL_SLOTS;
    slots = new Int32Array(slotCount * SLOT_SIZE);
    charactersUsed = 0;
    terms = [];
    return;
  }
  slotCount *= 2;
  slots = new Int32Array(slotCount * SLOT_SIZE);
  for (let at = 0; at < old.length; at += SLOT_SIZE) {
    if (old[at + 3] !== 0) place(old[at]!, old[at + 1]!, old[at + 2]!, old[at + 3]!);
  }
}
