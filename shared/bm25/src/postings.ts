/** Entries a term's run starts with room for. */
const FIRST_CAPACITY = 2;

/**
 * Every term's occurrences, by term number: an entry per document and field holding the
 * term, keyed `slot * fieldCount + field`, with the count there. Each term's entries are one
 * run in a shared typed array (`entries`: key, count, key, count…), which grows by moving to
 * a room twice as large (one another run left, or at the end), so adding a document allocates nothing per term and a search
 * reads each term's entries in one sweep. A document's entries are adjacent in its terms'
 * runs, which lets a search sum a document's fields without a lookup.
 */
export class Postings {
  /** Per term number: where its run starts (in entries), how many entries, how many fit, how many documents. */
  #start = new Int32Array(1024);
  #length = new Int32Array(1024);
  #capacity = new Int32Array(1024);
  #documents = new Int32Array(1024);
  /** Two numbers per entry: its key and its count. */
  entries = new Int32Array(1 << 16);
  /**
   * Entries handed out to runs. A term keeps its room for when it is met again, so the array
   * is bounded by the largest the index has been.
   */
  #used = 0;
  /**
   * Per power of two, where the rooms of that many entries that runs moved out of start: room
   * only ever doubles, so another term growing to that size takes one, instead of the array
   * growing by as much again (each new room would otherwise cost as much as all before it).
   */
  readonly #leftRooms: number[][] = Array.from({ length: 32 }, () => []);

  start(term: number): number {
    return this.#start[term] ?? 0;
  }

  /** How many entries `term` has. */
  length(term: number): number {
    return this.#length[term] ?? 0;
  }

  /** How many documents hold `term` in any field. */
  documents(term: number): number {
    return this.#documents[term] ?? 0;
  }

  /**
   * Counts one occurrence of `term` under `key`, a key of the document being added, whose
   * first key is `documentStart` (no other document may be added in between). True when the
   * document did not hold the term before.
   */
  add(term: number, key: number, documentStart: number): boolean {
    if (term >= this.#length.length) this.#growTerms(term + 1);
    const length = this.#length[term]!;
    let isNew = true;
    if (length > 0) {
      const last = (this.#start[term]! + length - 1) * 2;
      const lastKey = this.entries[last]!;
      if (lastKey === key) {
        this.entries[last + 1]!++;
        return false;
      }
      // Or an earlier field of this same document.
      isNew = lastKey < documentStart || lastKey > key;
    }
    if (length === this.#capacity[term]) this.#move(term, Math.max(FIRST_CAPACITY, length * 2));
    const at = (this.#start[term]! + length) * 2;
    this.entries[at] = key;
    this.entries[at + 1] = 1;
    this.#length[term] = length + 1;
    if (isNew) this.#documents[term]!++;
    return isNew;
  }

  /** Takes the entries of the document in `slot` out of `term`'s run; returns how many documents still hold it. */
  drop(term: number, slot: number, fieldCount: number): number {
    const low = slot * fieldCount;
    const high = low + fieldCount;
    const entries = this.entries;
    const start = this.#start[term]!;
    const end = start + this.#length[term]!;
    let first = start;
    while (entries[first * 2]! < low || entries[first * 2]! >= high) first++;
    let after = first + 1;
    while (after < end && entries[after * 2]! >= low && entries[after * 2]! < high) after++;
    entries.copyWithin(first * 2, after * 2, end * 2);
    this.#length[term] = end - start - (after - first);
    return --this.#documents[term]!;
  }

  /** Gives `term`'s run room for `capacity` entries: a room another run left, or at the end of `entries`. */
  #move(term: number, capacity: number): void {
    const start = this.#start[term]!;
    const length = this.#length[term]!;
    const oldCapacity = this.#capacity[term]!;
    let room = this.#leftRooms[Math.clz32(capacity)]!.pop();
    if (room === undefined) {
      if ((this.#used + capacity) * 2 > this.entries.length) this.#makeRoom(capacity);
      room = this.#used;
      this.#used += capacity;
    }
    this.entries.copyWithin(room * 2, start * 2, (start + length) * 2);
    if (oldCapacity > 0) this.#leftRooms[Math.clz32(oldCapacity)]!.push(start);
    this.#start[term] = room;
    this.#capacity[term] = capacity;
  }

  /** Room for `capacity` more entries at the end, and as much again. */
  #makeRoom(capacity: number): void {
    const larger = new Int32Array(Math.max(this.entries.length * 2, (this.#used + capacity) * 4));
    larger.set(this.entries.subarray(0, this.#used * 2));
    this.entries = larger;
  }

  #growTerms(needed: number): void {
    const length = Math.max(needed, this.#length.length * 2);
    const grown = (old: Int32Array) => {
      const larger = new Int32Array(length);
      larger.set(old);
      return larger;
    };
    this.#start = grown(this.#start);
    this.#length = grown(this.#length);
    this.#capacity = grown(this.#capacity);
    this.#documents = grown(this.#documents);
  }
}
