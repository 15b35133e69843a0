/** Levenshtein distance, one row at a time. */
function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] as number) + 1, (current[j - 1] as number) + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length] as number;
}

/** The names nearest to a mistyped one, for a "did you mean" that catches typos a word search misses. */
export function closestNames(wanted: string, names: Iterable<string>, limit: number): string[] {
  const lower = wanted.toLowerCase();
  const tolerance = Math.max(2, Math.floor(wanted.length / 4));
  // Names whose lengths differ by more than the tolerance cannot be within it: not measured.
  return [...names]
    .filter((name) => Math.abs(name.length - lower.length) <= tolerance)
    .map((name) => ({ name, cost: distance(lower, name.toLowerCase()) }))
    .filter((candidate) => candidate.cost <= tolerance)
    .sort((a, b) => a.cost - b.cost || (a.name < b.name ? -1 : 1))
    .slice(0, limit)
    .map((candidate) => candidate.name);
}
