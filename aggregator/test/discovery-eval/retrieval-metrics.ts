export interface QueryMetrics {
  recallAt1: number;
  recallAt5: number;
  /** Whether it is among the 15 a search lists: the first `limit` with schemas, the rest as one line each. */
  recallAt15: number;
  reciprocalRankAt10: number;
}

/**
 * Recall@1, Recall@5, Recall@15 and reciprocal rank within the top 10 of one query, with ties among
 * equal scores resolved in expectation over a random order, so no ranking gains from the
 * order tools were registered in. `scores` holds every tool's score (0 when unmatched).
 */
export function queryMetrics(
  scores: ReadonlyMap<string, number>,
  relevant: ReadonlySet<string>,
): QueryMetrics {
  const relevantScores = [...relevant].map((name) => scores.get(name) ?? 0);
  const best = Math.max(...relevantScores);
  let above = 0;
  let tied = 0;
  for (const score of scores.values()) {
    if (score > best) above++;
    else if (score === best) tied++;
  }
  const relevantTied = relevantScores.filter((score) => score === best).length;
  const metrics = { recallAt1: 0, recallAt5: 0, recallAt15: 0, reciprocalRankAt10: 0 };
  const outcomes = logBinomial(tied, relevantTied);
  for (let position = 1; position <= tied - relevantTied + 1; position++) {
    const rank = above + position;
    if (rank > 15) break;
    // The first relevant tool lands at `position` when the rest of them fall behind it.
    const chance = Math.exp(logBinomial(tied - position, relevantTied - 1) - outcomes);
    if (rank <= 1) metrics.recallAt1 += chance;
    if (rank <= 5) metrics.recallAt5 += chance;
    metrics.recallAt15 += chance;
    if (rank <= 10) metrics.reciprocalRankAt10 += chance / rank;
  }
  return metrics;
}

export function meanMetrics(all: readonly QueryMetrics[]): QueryMetrics {
  const mean = (pick: (metrics: QueryMetrics) => number) =>
    all.reduce((sum, metrics) => sum + pick(metrics), 0) / all.length;
  return {
    recallAt1: mean((metrics) => metrics.recallAt1),
    recallAt5: mean((metrics) => metrics.recallAt5),
    recallAt15: mean((metrics) => metrics.recallAt15),
    reciprocalRankAt10: mean((metrics) => metrics.reciprocalRankAt10),
  };
}

function logBinomial(n: number, k: number): number {
  if (k < 0 || k > n) return Number.NEGATIVE_INFINITY;
  let sum = 0;
  for (let i = 1; i <= k; i++) sum += Math.log(n - k + i) - Math.log(i);
  return sum;
}
