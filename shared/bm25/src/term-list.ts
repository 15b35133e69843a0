/** A growable list of term numbers, reused from text to text so tokenizing allocates nothing. */
export class TermList {
  values = new Int32Array(256);
  length = 0;

  push(number: number): void {
    if (this.length === this.values.length) this.#grow(this.length + 1);
    this.values[this.length++] = number;
  }

  /** Appends `from[start]` up to `from[end - 1]`. */
  append(from: Int32Array, start: number, end: number): void {
    const count = end - start;
    if (this.length + count > this.values.length) this.#grow(this.length + count);
    // Chunks have a few terms each: a loop beats making a subarray to copy from.
    const values = this.values;
    let length = this.length;
    for (let at = start; at < end; at++) values[length++] = from[at]!;
    this.length = length;
  }

  #grow(needed: number): void {
    const larger = new Int32Array(Math.max(needed, this.values.length * 2));
    larger.set(this.values.subarray(0, this.length));
    this.values = larger;
  }
}
