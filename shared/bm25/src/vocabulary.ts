/** Unheld terms are forgotten once there are this many, and more than held ones. */
const FORGET_AFTER = 4096;

/**
 * Terms and the small numbers that stand for them, so postings can be found by array index
 * instead of by hashing strings. Indexes `hold` the numbers their documents use; the
 * numbers of terms nobody holds (words seen only in queries, or in documents since removed)
 * are given back by `tidy` once there are many, and handed out again.
 */
export class Vocabulary {
  readonly #numbers = new Map<string, number>();
  readonly #terms: (string | undefined)[] = [];
  readonly #released: number[] = [];
  /** Per number, how many holders hold it. */
  #holders = new Int32Array(1024);
  #held = 0;

  /** The number of `term`, giving it one when it has none. */
  numberOf(term: string): number {
    let number = this.#numbers.get(term);
    if (number === undefined) {
      number = this.#released.pop() ?? this.#terms.length;
      this.#numbers.set(term, number);
      this.#terms[number] = term;
    }
    return number;
  }

  /** The number of `term` if it has one. */
  find(term: string): number | undefined {
    return this.#numbers.get(term);
  }

  termOf(number: number): string | undefined {
    return this.#terms[number];
  }

  hold(number: number): void {
    if (number >= this.#holders.length) {
      const larger = new Int32Array(Math.max(number + 1, this.#holders.length * 2));
      larger.set(this.#holders);
      this.#holders = larger;
    }
    if (this.#holders[number]!++ === 0) this.#held++;
  }

  letGo(number: number): void {
    if (--this.#holders[number]! === 0) this.#held--;
  }

  /**
   * Gives back the numbers nobody holds when they have piled up; true when it did, and then
   * whoever remembered numbers without holding them must forget them. Call it only where no
   * such number is in flight.
   */
  tidy(): boolean {
    const unheld = this.#numbers.size - this.#held;
    if (unheld <= Math.max(FORGET_AFTER, this.#held)) return false;
    for (let number = 0; number < this.#terms.length; number++) {
      const term = this.#terms[number];
      if (term === undefined || (this.#holders[number] ?? 0) > 0) continue;
      this.#numbers.delete(term);
      this.#terms[number] = undefined;
      this.#released.push(number);
    }
    return true;
  }
}
