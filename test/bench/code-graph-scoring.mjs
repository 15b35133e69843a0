// Precision and recall of callsites: a callsite is a `file:line` pair, counted as often as calls
// to the symbol start on that line (two calls on one line are two callsites).

const keyOf = (callsite) => `${callsite.file}:${callsite.line}`;

function byKey(callsites) {
  const groups = new Map();
  for (const callsite of callsites) {
    const key = keyOf(callsite);
    const group = groups.get(key) ?? [];
    group.push(callsite);
    groups.set(key, group);
  }
  return groups;
}

/**
 * Matches found callsites against the true ones, line by line. Returns the counts and each true
 * callsite marked found or missed, and the found callsites that are not true.
 */
export function compareCallsites(truth, found) {
  const expected = byKey(truth);
  const answered = byKey(found);
  const marked = [];
  const extra = [];
  for (const [key, calls] of expected) {
    const hits = answered.get(key) ?? [];
    for (const [index, call] of calls.entries()) {
      marked.push(
        index < hits.length
          ? { ...call, found: true, resolution: hits[index].resolution }
          : { ...call, found: false },
      );
    }
  }
  for (const [key, calls] of answered) {
    const wanted = expected.get(key)?.length ?? 0;
    extra.push(...calls.slice(wanted));
  }
  const truePositives = marked.filter((call) => call.found).length;
  return {
    truth: truth.length,
    found: found.length,
    truePositives,
    precision: found.length === 0 ? undefined : truePositives / found.length,
    recall: truth.length === 0 ? undefined : truePositives / truth.length,
    marked,
    extra,
  };
}

/** Sums of several comparisons: micro-averaged precision and recall, and the per-symbol means. */
export function totalOf(comparisons) {
  const sum = (pick) => comparisons.reduce((total, comparison) => total + pick(comparison), 0);
  const truth = sum((c) => c.truth);
  const found = sum((c) => c.found);
  const truePositives = sum((c) => c.truePositives);
  const mean = (pick) => {
    const values = comparisons.map(pick).filter((value) => value !== undefined);
    return values.length === 0 ? undefined : values.reduce((a, b) => a + b, 0) / values.length;
  };
  return {
    symbols: comparisons.length,
    truth,
    found,
    truePositives,
    precision: found === 0 ? undefined : truePositives / found,
    recall: truth === 0 ? undefined : truePositives / truth,
    // A symbol with no answer has no precision; it counts as 0 recall.
    meanPrecision: mean((c) => c.precision),
    meanRecall: mean((c) => c.recall ?? 0),
  };
}

/** Answered callsites per resolution (how code-graph bound them), and how many were right. */
export function byResolution(comparisons) {
  const resolutions = new Map();
  const entry = (resolution) => {
    const known = resolutions.get(resolution) ?? { resolution, answered: 0, correct: 0 };
    resolutions.set(resolution, known);
    return known;
  };
  for (const comparison of comparisons) {
    for (const call of comparison.marked) {
      if (!call.found) continue;
      entry(call.resolution).answered++;
      entry(call.resolution).correct++;
    }
    for (const call of comparison.extra) entry(call.resolution).answered++;
  }
  return [...resolutions.values()].sort((a, b) => b.answered - a.answered);
}

/** True callsites per kind, and how many of them were found. */
export function byKind(marked) {
  const kinds = new Map();
  for (const call of marked) {
    const entry = kinds.get(call.kind) ?? { kind: call.kind, truth: 0, found: 0 };
    entry.truth++;
    if (call.found) entry.found++;
    kinds.set(call.kind, entry);
  }
  return [...kinds.values()].sort((a, b) => b.truth - b.found - (a.truth - a.found) || b.truth - a.truth);
}
