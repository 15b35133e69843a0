/**
 * Answers kept under two keys in nested maps. A key made by joining both into one string costs
 * more than the lookup itself on the resolver's hot paths: every join is a new string to hash.
 */
export class PairCache<First, Second, Value> {
  private readonly byFirst = new Map<First, Map<Second, Value>>();

  /** The kept answer for the pair, or `compute()`'s, kept from now on. */
  get(first: First, second: Second, compute: () => Value): Value {
    let bySecond = this.byFirst.get(first);
    if (!bySecond) {
      bySecond = new Map();
      this.byFirst.set(first, bySecond);
    }
    if (bySecond.has(second)) return bySecond.get(second) as Value;
    const value = compute();
    bySecond.set(second, value);
    return value;
  }
}
