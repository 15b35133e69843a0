interface Waiting<T> {
  item: T;
  resolve(): void;
  reject(error: unknown): void;
}

/**
 * Writes the items of concurrent callers together (group commit): while one batch is being
 * written, the items that arrive wait and go as the next batch, so twenty calls ending together
 * cost one round trip and one commit instead of twenty, and a lone call waits for nobody. Each
 * caller's promise settles with its batch: resolved once the batch is written, rejected with the
 * batch's error (a batch is one statement, written whole or not at all).
 */
export class GroupCommit<T> {
  #waiting: Waiting<T>[] = [];
  #writing = false;

  constructor(
    private readonly write: (items: T[]) => Promise<void>,
    /** Bounds one statement's size; more waiting items go in the batches after. */
    private readonly maxBatch = 500,
  ) {}

  add(item: T): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.#waiting.push({ item, resolve, reject });
      if (!this.#writing) void this.#drain();
    });
  }

  async #drain(): Promise<void> {
    this.#writing = true;
    while (this.#waiting.length > 0) {
      const batch = this.#waiting.splice(0, this.maxBatch);
      try {
        await this.write(batch.map((waiting) => waiting.item));
        for (const waiting of batch) waiting.resolve();
      } catch (error) {
        for (const waiting of batch) waiting.reject(error);
      }
    }
    this.#writing = false;
  }
}
